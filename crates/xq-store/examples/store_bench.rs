//! Latency and throughput of the storage operations the stages use, for the sizing note in
//! docs/STORAGE.md. Prints medians; asserts nothing.
//!
//! ```text
//! eval "$(bash scripts/s3-server.sh start)"
//! cargo run --release -p xq-store --example store_bench -- s3://xq-test/bench [reps]
//! cargo run --release -p xq-store --example store_bench -- /tmp/xq-bench [reps]
//! ```

use std::time::{Duration, Instant};
use xq_store::{Store, StoreUrl};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = StoreUrl::parse(&args.next().ok_or("usage: store_bench URL [reps]")?)?;
    let reps: usize = args.next().map_or(Ok(15), |r| r.parse())?;
    let run = format!("run-{}", std::process::id());
    let store = Store::open(&url)?.at(&run)?;
    println!("store {} ({reps} repetitions, medians)", store.url());
    println!("{:>10} {:>10} {:>10} {:>11} {:>11}", "size", "put ms", "get ms", "put MB/s", "get MB/s");
    for size in [64 << 10, 1 << 20, 2 << 20, 5 << 20] {
        let data = bytes(size, size as u64);
        let (mut puts, mut gets) = (Vec::new(), Vec::new());
        for r in 0..reps {
            let key = format!("objects/{size}/{r}");
            let t = Instant::now();
            store.put(&key, data.clone())?;
            puts.push(t.elapsed());
            let t = Instant::now();
            let back = store.get(&key)?;
            gets.push(t.elapsed());
            assert_eq!(back.len(), size);
        }
        let (put, get) = (median(puts), median(gets));
        let mbps = |d: Duration| size as f64 / 1e6 / d.as_secs_f64();
        println!(
            "{:>10} {:>10.2} {:>10.2} {:>11.0} {:>11.0}",
            size,
            put.as_secs_f64() * 1e3,
            get.as_secs_f64() * 1e3,
            mbps(put),
            mbps(get)
        );
    }

    // One self-play shard pair as the protocol writes and reads it: samples + games + manifest.
    let (samples, games) = (bytes(2 << 20, 7), bytes(40 << 10, 8));
    let (mut commits, mut reads, mut lists, mut creates) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in 0..reps {
        let name = format!("w-bench-b{r:06}");
        let t = Instant::now();
        let mut writer = store.artifact("selfplay/g000", &name)?;
        writer.put("samples.parquet", samples.clone())?;
        writer.put("games.parquet", games.clone())?;
        writer.commit(serde_json::json!({ "games": 16 }))?;
        commits.push(t.elapsed());
        let t = Instant::now();
        let names = store.committed("selfplay/g000")?;
        lists.push(t.elapsed());
        assert_eq!(names.len(), r + 1);
        let t = Instant::now();
        let manifest = store.read_manifest("selfplay/g000", &name)?;
        for entry in &manifest.objects {
            store.read_object(entry)?;
        }
        reads.push(t.elapsed());
        let t = Instant::now();
        let _ = store.put_new(&format!("flags/{r}"), &b"x"[..])?;
        creates.push(t.elapsed());
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let manifest_bytes =
        store.head(&xq_store::manifest_key("selfplay/g000", "w-bench-b000000"))?.map_or(0, |o| o.size);
    println!("shard pair of {} + {} bytes, manifest {manifest_bytes} bytes:", samples.len(), games.len());
    println!("  write (2 PUT + 1 conditional PUT of the manifest) {:>8.2} ms", ms(median(commits)));
    println!("  list the manifests ({reps} at most, 1 LIST)         {:>8.2} ms", ms(median(lists)));
    println!("  read (GET manifest + 2 GET, verified)             {:>8.2} ms", ms(median(reads)));
    println!("  create-if-absent of a small object                {:>8.2} ms", ms(median(creates)));

    for object in store.list("")? {
        store.delete(&object.key)?;
    }
    Ok(())
}
