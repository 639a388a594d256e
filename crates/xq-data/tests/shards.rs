//! Shard files: round trips, corruption handling, versioning, determinism and the replay window.

mod common;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use common::random_games;
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use xq_data::{
    DataError, GameRecord, GameWriter, ReplayWindow, SAMPLES_SCHEMA_VERSION, Sample, SampleWriter, Table,
    WriterOptions, checksum_path, list_shards, read_dir, read_games_dir, read_samples_dir, read_shard,
    shard_file_name, shard_row_count, shard_tmp_path,
};

fn small_shards(rows_per_shard: usize) -> WriterOptions {
    WriterOptions { rows_per_shard, row_group_rows: 64, batch_rows: 37, zstd_level: 1 }
}

fn write_samples(dir: &Path, samples: &[Sample], rows_per_shard: usize) -> Vec<xq_data::WrittenShard> {
    let mut writer = SampleWriter::create(dir, small_shards(rows_per_shard)).unwrap();
    writer.extend(samples.iter().cloned()).unwrap();
    writer.finish().unwrap()
}

#[test]
fn samples_round_trip_across_shards() {
    let dir = tempfile::tempdir().unwrap();
    let (_, samples) = random_games(6, 11, 80);
    assert!(samples.len() > 300, "{} samples", samples.len());
    let written = write_samples(dir.path(), &samples, 150);
    assert_eq!(written.len(), samples.len().div_ceil(150));
    for (i, shard) in written.iter().enumerate() {
        assert_eq!(shard.file.index, i as u64);
        assert!(shard.file.path.ends_with(shard_file_name("samples", i as u64)));
        assert_eq!(shard_row_count::<Sample>(&shard.file.path).unwrap(), shard.rows);
    }
    let read = read_samples_dir(dir.path()).unwrap();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(read.shards.len(), written.len());
    assert_eq!(read.rows, samples);
    for s in read.rows.iter().take(20) {
        let pos = s.position().unwrap();
        assert_eq!(pos.fen().split(' ').next(), s.fen.split(' ').next());
        assert_eq!(pos.side_to_move(), s.side_to_move);
        assert!(pos.is_legal(s.move_played));
    }
}

#[test]
fn games_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (mut games, _) = random_games(9, 5, 60);
    games[1].moves_chinese.clear();
    games[2].moves.clear();
    games[2].moves_chinese.clear();
    games[2].moves_wxf.clear();
    games[3].moves_wxf.clear();
    let mut writer = GameWriter::create(dir.path(), small_shards(4)).unwrap();
    writer.extend(games.iter().cloned()).unwrap();
    assert_eq!(writer.finish().unwrap().len(), 3);
    let read = read_games_dir(dir.path()).unwrap();
    assert!(read.skipped.is_empty());
    assert_eq!(read.rows, games);
    assert!(read.rows.iter().any(|g| g.opening.is_none()) && read.rows.iter().any(|g| g.opening.is_some()));
    assert!(
        read.rows.iter().any(|g| g.must_vary.is_some()) && read.rows.iter().any(|g| g.must_vary.is_none())
    );
}

#[test]
fn invalid_rows_are_rejected_and_the_writer_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let (mut games, mut samples) = random_games(2, 3, 20);
    let mut writer = SampleWriter::create(dir.path(), WriterOptions::default()).unwrap();
    let mut bad = samples[0].clone();
    bad.result = 2;
    let err = writer.push(bad).unwrap_err();
    assert!(matches!(err, DataError::InvalidRow { .. }), "{err}");
    assert!(
        err.to_string().contains("samples-000000.parquet") && err.to_string().contains("result"),
        "{err}"
    );
    let mut bad = samples[0].clone();
    bad.board[4] = 15;
    assert!(writer.push(bad).is_err());
    samples.truncate(5);
    writer.extend(samples.iter().cloned()).unwrap();
    writer.finish().unwrap();
    assert_eq!(read_samples_dir(dir.path()).unwrap().rows, samples);

    let mut writer = GameWriter::create(dir.path(), WriterOptions::default()).unwrap();
    games[0].moves_chinese.pop();
    let err = writer.push(games[0].clone()).unwrap_err();
    assert!(err.to_string().contains("moves_chinese"), "{err}");
}

#[test]
fn truncated_and_garbage_shards_are_skipped_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let (_, samples) = random_games(4, 21, 60);
    let written = write_samples(dir.path(), &samples[..200], 50);
    assert_eq!(written.len(), 4);

    // Shard 1: truncated, sidecar kept (the checksum catches it).
    let p1 = &written[1].file.path;
    let len = fs::metadata(p1).unwrap().len();
    fs::OpenOptions::new().write(true).open(p1).unwrap().set_len(len / 2).unwrap();
    // Shard 2: truncated without a sidecar (the Parquet footer check catches it).
    let p2 = &written[2].file.path;
    fs::remove_file(checksum_path(p2)).unwrap();
    let len = fs::metadata(p2).unwrap().len();
    fs::OpenOptions::new().write(true).open(p2).unwrap().set_len(len - 100).unwrap();
    // Shard 7: garbage.
    let garbage = dir.path().join(shard_file_name("samples", 7));
    fs::write(&garbage, b"this is not parquet at all, just some bytes").unwrap();

    let read = read_samples_dir(dir.path()).unwrap();
    let expected: Vec<Sample> = samples[0..50].iter().chain(&samples[150..200]).cloned().collect();
    assert_eq!(read.rows, expected);
    let skipped: Vec<_> = read.skipped.iter().map(|s| s.path.clone()).collect();
    assert_eq!(skipped, vec![p1.clone(), p2.clone(), garbage.clone()]);
    assert!(matches!(read.skipped[0].error, DataError::ChecksumMismatch { .. }));
    assert!(matches!(read.skipped[1].error, DataError::Parquet { .. }));
    for s in &read.skipped {
        let message = s.to_string();
        assert!(message.contains(&s.path.display().to_string()), "{message}");
        assert!(s.error.is_corruption());
    }

    // The replay window skips shards whose footer it cannot read.
    let window = ReplayWindow::newest(&[dir.path()], 1_000).unwrap();
    let skipped: Vec<_> = window.skipped.iter().map(|s| s.path.clone()).collect();
    assert_eq!(skipped, vec![garbage, p2.clone(), p1.clone()]); // newest first
    assert_eq!(window.rows(), 100);
    let contents = window.read().unwrap();
    assert_eq!(contents.rows, expected);
    assert!(contents.skipped.is_empty());
}

#[test]
fn a_flipped_byte_fails_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let (_, samples) = random_games(1, 8, 40);
    let written = write_samples(dir.path(), &samples, 1_000);
    let path = &written[0].file.path;
    let mut bytes = fs::read(path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    fs::write(path, bytes).unwrap();
    let err = read_shard::<Sample>(path).unwrap_err();
    assert!(matches!(err, DataError::ChecksumMismatch { .. }), "{err}");
    let read = read_samples_dir(dir.path()).unwrap();
    assert!(read.rows.is_empty());
    assert_eq!(read.skipped.len(), 1);
    // The footer is intact, so the window counts the shard, then skips it when reading.
    let window = ReplayWindow::newest(&[dir.path()], 10).unwrap();
    assert_eq!(window.rows(), 10);
    let contents = window.read().unwrap();
    assert!(contents.rows.is_empty());
    assert!(matches!(contents.skipped[0].error, DataError::ChecksumMismatch { .. }));
}

/// Writes an otherwise valid, empty `samples` file claiming another schema version.
fn write_with_metadata(path: &Path, table: &str, version: &str) {
    let props = WriterProperties::builder()
        .set_key_value_metadata(Some(vec![
            KeyValue::new("xq.table".to_string(), table.to_string()),
            KeyValue::new("xq.schema_version".to_string(), version.to_string()),
        ]))
        .build();
    let schema = Sample::arrow_schema();
    let mut writer =
        ArrowWriter::try_new(fs::File::create(path).unwrap(), Arc::clone(&schema), Some(props)).unwrap();
    writer.write(&arrow_array::RecordBatch::new_empty(schema)).unwrap();
    writer.close().unwrap();
}

#[test]
fn another_schema_version_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(shard_file_name("samples", 0));
    write_with_metadata(&path, "samples", "999");
    let err = read_shard::<Sample>(&path).unwrap_err();
    assert!(matches!(err, DataError::SchemaVersion { expected: SAMPLES_SCHEMA_VERSION, .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("999")
            && message.contains(&format!("version {SAMPLES_SCHEMA_VERSION}"))
            && message.contains("samples-000000"),
        "{message}"
    );
    // Not a corruption: a directory reader stops instead of skipping.
    assert!(!err.is_corruption());
    assert!(matches!(read_samples_dir(dir.path()), Err(DataError::SchemaVersion { .. })));
    assert!(matches!(shard_row_count::<Sample>(&path), Err(DataError::SchemaVersion { .. })));
    assert!(ReplayWindow::newest(&[dir.path()], 10).is_err());

    write_with_metadata(&path, "samples", &SAMPLES_SCHEMA_VERSION.to_string());
    assert_eq!(read_shard::<Sample>(&path).unwrap(), Vec::new());
}

#[test]
fn another_table_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let (games, _) = random_games(2, 1, 10);
    let mut writer = GameWriter::create(dir.path(), WriterOptions::default()).unwrap();
    writer.extend(games).unwrap();
    let shard = writer.finish().unwrap().remove(0);
    let renamed = dir.path().join(shard_file_name("samples", 0));
    fs::rename(&shard.file.path, &renamed).unwrap();
    let err = read_shard::<Sample>(&renamed).unwrap_err();
    assert!(matches!(&err, DataError::WrongTable { found, .. } if found == "games"), "{err}");
}

#[test]
fn tmp_files_are_ignored_and_numbering_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (_, samples) = random_games(2, 4, 40);
    let first = write_samples(dir.path(), &samples[..60], 30);
    assert_eq!(first.len(), 2);
    // A crashed writer's leftovers: an unfinished shard and an unfinished sidecar, plus
    // foreign `.tmp` names.
    let leftover = shard_tmp_path(&dir.path().join(shard_file_name("samples", 2)));
    assert!(leftover.ends_with(".samples-000002.parquet.tmp"));
    fs::write(&leftover, b"half a shard").unwrap();
    fs::write(dir.path().join(".samples-000002.parquet.crc32.tmp"), b"junk").unwrap();
    fs::write(dir.path().join("samples-000003.parquet.tmp"), b"junk").unwrap();
    fs::write(dir.path().join("notes.txt"), b"not a shard").unwrap();
    assert_eq!(list_shards::<Sample>(dir.path()).unwrap().len(), 2);
    let read = read_samples_dir(dir.path()).unwrap();
    assert!(read.skipped.is_empty());
    assert_eq!(read.rows, samples[..60]);

    let mut writer = SampleWriter::create(dir.path(), small_shards(30)).unwrap();
    assert_eq!(writer.next_index(), 2);
    writer.extend(samples[60..70].iter().cloned()).unwrap();
    let second = writer.finish().unwrap();
    assert_eq!(second[0].file.index, 2);
    assert!(!leftover.exists());
    assert_eq!(read_samples_dir(dir.path()).unwrap().rows, samples[..70]);
    // Only the games table's shards count for the games writer.
    assert_eq!(GameWriter::create(dir.path(), WriterOptions::default()).unwrap().next_index(), 0);
}

#[test]
fn same_rows_give_identical_bytes() {
    let (games, samples) = random_games(3, 99, 70);
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    for dir in [a.path(), b.path()] {
        write_samples(dir, &samples, 100);
        let mut writer = GameWriter::create(dir, WriterOptions::default()).unwrap();
        writer.extend(games.iter().cloned()).unwrap();
        writer.finish().unwrap();
    }
    let names: Vec<_> = fs::read_dir(a.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        let (x, y) = (fs::read(a.path().join(&name)).unwrap(), fs::read(b.path().join(&name)).unwrap());
        assert!(x == y, "{name:?} differs");
    }
    // And the bytes depend on the rows.
    let c = tempfile::tempdir().unwrap();
    let mut changed = samples.clone();
    changed[0].root_visits += 1;
    write_samples(c.path(), &changed, 100);
    let name = shard_file_name("samples", 0);
    assert_ne!(fs::read(a.path().join(&name)).unwrap(), fs::read(c.path().join(&name)).unwrap());
}

#[test]
fn replay_window_picks_the_newest_rows() {
    let old = tempfile::tempdir().unwrap();
    let new = tempfile::tempdir().unwrap();
    let (_, samples) = random_games(6, 17, 100);
    assert!(samples.len() >= 500);
    write_samples(old.path(), &samples[..300], 100); // shards 0, 1, 2
    write_samples(new.path(), &samples[300..500], 80); // 80, 80, 40

    let window = ReplayWindow::newest(&[old.path(), new.path()], 250).unwrap();
    assert_eq!(window.rows(), 250);
    let picked: Vec<_> = window.shards.iter().map(|s| (s.rows, s.skip)).collect();
    assert_eq!(picked, vec![(40, 0), (80, 0), (80, 0), (100, 50)]);
    assert_eq!(window.paths()[0], new.path().join(shard_file_name("samples", 2)));
    let read = window.read().unwrap();
    assert_eq!(read.rows, samples[250..500]);

    let all = ReplayWindow::newest(&[old.path(), new.path()], 10_000).unwrap();
    assert_eq!(all.rows(), 500);
    assert_eq!(all.read().unwrap().rows, samples[..500]);
    let few = ReplayWindow::newest(&[old.path(), new.path()], 30).unwrap();
    assert_eq!(few.read().unwrap().rows, samples[470..500]);
    assert_eq!(ReplayWindow::newest(&[old.path()], 0).unwrap().rows(), 0);
}

#[test]
fn read_dir_is_generic_over_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (games, samples) = random_games(3, 2, 30);
    write_samples(dir.path(), &samples, 1_000);
    let mut writer = GameWriter::create(dir.path(), WriterOptions::default()).unwrap();
    writer.extend(games.iter().cloned()).unwrap();
    writer.finish().unwrap();
    assert_eq!(read_dir::<GameRecord>(dir.path()).unwrap().rows, games);
    assert_eq!(read_dir::<Sample>(dir.path()).unwrap().rows, samples);
}

#[test]
fn version_1_games_shards_are_read_with_their_wxf_moves_rendered() {
    // data/fixtures/games-v1: `xq import` of two games by a build before `moves_wxf`.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/fixtures/games-v1");
    let read = read_games_dir(&dir).unwrap();
    assert!(read.skipped.is_empty(), "{:?}", read.skipped);
    assert_eq!(read.rows.len(), 2);
    let first = &read.rows[0];
    assert_eq!(first.moves.len(), 6);
    assert_eq!(first.moves_wxf, ["C2=5", "N8+7", "N2+3", "R9=8", "R1=2", "N2+3"]);
    assert_eq!(first.moves_chinese[0], "炮二平五");
    assert_eq!(read.rows[1].moves_wxf, ["C8=5", "N2+3", "N8+7"]);

    // Rewritten, they are version 2 shards with the same rows.
    let out = tempfile::tempdir().unwrap();
    let mut writer = GameWriter::create(out.path(), WriterOptions::default()).unwrap();
    writer.extend(read.rows.iter().cloned()).unwrap();
    writer.finish().unwrap();
    assert_eq!(read_games_dir(out.path()).unwrap().rows, read.rows);
}

#[test]
fn wxf_moves_must_match_the_moves() {
    let dir = tempfile::tempdir().unwrap();
    let (mut games, _) = random_games(2, 3, 20);
    let mut writer = GameWriter::create(dir.path(), WriterOptions::default()).unwrap();
    games[0].moves_wxf.pop();
    let err = writer.push(games[0].clone()).unwrap_err();
    assert!(err.to_string().contains("moves_wxf"), "{err}");
}
