//! Samples written and read per second through whole shards (zstd(1), fsync included).
//!
//! `cargo bench -p xq-data --bench shards`; criterion prints the median time per shard and the
//! throughput in samples/s.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use xq_data::{GameRecord, Sample, SampleWriter, WriterOptions, read_shard};

#[path = "../tests/common/mod.rs"]
mod common;

const SAMPLES: usize = 20_000;

fn rows() -> (Vec<GameRecord>, Vec<Sample>) {
    let mut games = Vec::new();
    let mut samples = Vec::new();
    let mut id = 0;
    while samples.len() < SAMPLES {
        let (game, mut rows) = common::random_game(id, 1_000 + id, 150);
        games.push(game);
        samples.append(&mut rows);
        id += 1;
    }
    samples.truncate(SAMPLES);
    (games, samples)
}

fn write_shard(dir: &std::path::Path, samples: &[Sample]) {
    let options = WriterOptions { rows_per_shard: samples.len(), ..WriterOptions::default() };
    let mut writer = SampleWriter::create(dir, options).unwrap_or_else(|e| panic!("{e}"));
    writer.extend(samples.iter().cloned()).unwrap_or_else(|e| panic!("{e}"));
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
}

fn bench(c: &mut Criterion) {
    let (_, samples) = rows();
    let policy: usize = samples.iter().map(|s| s.policy.len()).sum();
    eprintln!("{} samples, {:.1} policy entries each", samples.len(), policy as f64 / samples.len() as f64);

    let mut group = c.benchmark_group("samples");
    group.sample_size(10).throughput(Throughput::Elements(samples.len() as u64));
    group.bench_function("write_shard", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap_or_else(|e| panic!("{e}")),
            |dir| write_shard(dir.path(), &samples),
            BatchSize::PerIteration,
        )
    });

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_shard(dir.path(), &samples);
    let path = dir.path().join("samples-000000.parquet");
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    eprintln!("shard: {bytes} bytes, {:.1} bytes/sample", bytes as f64 / samples.len() as f64);
    group.bench_function("read_shard", |b| {
        b.iter(|| black_box(read_shard::<Sample>(&path).unwrap_or_else(|e| panic!("{e}")).len()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
