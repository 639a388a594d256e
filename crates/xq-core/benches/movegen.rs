//! Move generation speed: perft leaves per second and legal-move generation per position.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xq_core::{MoveList, Position, perft::perft};

const MIDGAME: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

fn bench(c: &mut Criterion) {
    let start = Position::startpos();
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.throughput(Throughput::Elements(3_290_240));
    g.bench_function("startpos_depth4", |b| b.iter(|| perft(black_box(&start), 4)));
    g.finish();

    let mid = Position::from_fen(MIDGAME).expect("bench FEN");
    let mut g = c.benchmark_group("legal_moves");
    for (name, pos) in [("startpos", start), ("midgame", mid)] {
        g.bench_function(name, |b| {
            let mut list = MoveList::new();
            b.iter(|| {
                black_box(&pos).generate_legal(&mut list);
                list.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
