//! The samples a run trains on: the newest `window_samples` samples of the data directories,
//! prepared once (position, sparse policy target, WDL target, weights), and the seeded order in
//! which they are presented (an epoch is a permutation; a cursor is `(epoch, position)`).

use ndarray::{Array1, Array2, Array4};
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use xq_core::HistoryFeatures;
use xq_core::Position;
use xq_data::{ReplayWindow, Sample, ShardFile, WindowShard};
use xq_nn::encoding::{BOARD_COLS, BOARD_ROWS, mirror_planes};
use xq_nn::{INPUT_PLANES, INPUT_SIZE, POLICY_SIZE, TrainBatch, encode_position};

use crate::config::DataSection;
use crate::error::TrainError;
use xq_core::seed::fnv1a64;

/// A shard slice of the window, as recorded in the training state so that a resumed run reads
/// exactly the samples the run started with (even if newer shards appeared since).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedShard {
    /// The shard file.
    pub path: PathBuf,
    /// Its number.
    pub index: u64,
    /// Rows in the shard.
    pub rows: u64,
    /// Its oldest rows left out of the window.
    pub skip: u64,
}

/// Which samples of the shards a data set keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    /// Every sample: a validation set of its own.
    #[default]
    All,
    /// The samples training may use: all but the games held back by `data.holdout_games`.
    Training,
    /// Only the games held back by `data.holdout_games` (none when it is 0).
    HeldOut,
}

/// Whether the game `game_id` is held back from training when one game in `every` is (0: none).
pub fn is_held_out(game_id: u64, every: u32) -> bool {
    every > 1 && fnv1a64(&game_id.to_le_bytes()).is_multiple_of(u64::from(every))
}

impl Selection {
    fn keeps(self, game_id: u64, every: u32) -> bool {
        match self {
            Selection::All => true,
            Selection::Training => !is_held_out(game_id, every),
            Selection::HeldOut => is_held_out(game_id, every),
        }
    }
}

/// One sample ready to be batched.
#[derive(Clone)]
struct PreparedSample {
    position: Position,
    history: HistoryFeatures,
    /// `(policy index, probability)`, probabilities summing to 1.
    policy: Vec<(u16, f32)>,
    wdl: [f32; 3],
    policy_weight: f32,
    value_weight: f32,
}

/// The training samples of a run.
#[derive(Debug)]
pub struct Dataset {
    samples: Vec<PreparedSample>,
    /// The shard slices read, newest first (empty for [`Dataset::from_samples`]).
    pub window: Vec<RecordedShard>,
    /// Samples in the window before any was dropped.
    pub window_samples: usize,
    /// Samples dropped because their weight is 0 or their game is not selected (held back
    /// from training, or not held back for a held-out set).
    pub dropped: usize,
    /// Warnings: corrupt shards skipped, unusable samples skipped.
    pub warnings: Vec<String>,
    /// A hash of the window's samples (game, ply, seed, board), to check a resumed run reads
    /// the same data.
    pub fingerprint: String,
}

impl Dataset {
    /// The newest `data.window_samples` samples of `dirs` (oldest directory first). Corrupt or
    /// truncated shards are skipped and reported in [`Dataset::warnings`].
    ///
    /// # Errors
    /// [`TrainError::Data`] for an I/O failure or a shard of another table or schema version,
    /// [`TrainError::NoSamples`] if nothing usable remains.
    pub fn load(dirs: &[PathBuf], data: &DataSection) -> Result<Dataset, TrainError> {
        Self::load_selected(dirs, data, Selection::Training)
    }

    /// Like [`Dataset::load`], keeping the samples `selection` names.
    ///
    /// # Errors
    /// As [`Dataset::load`].
    pub fn load_selected(
        dirs: &[PathBuf],
        data: &DataSection,
        selection: Selection,
    ) -> Result<Dataset, TrainError> {
        if dirs.is_empty() {
            return Err(TrainError::NoDataDirs);
        }
        let window = ReplayWindow::newest(dirs, data.window_samples)?;
        let mut warnings: Vec<String> = window.skipped.iter().map(ToString::to_string).collect();
        let contents = window.read()?;
        warnings.extend(contents.skipped.iter().map(ToString::to_string));
        let read: std::collections::HashSet<&Path> =
            contents.shards.iter().map(|s| s.path.as_path()).collect();
        let recorded: Vec<RecordedShard> = window
            .shards
            .iter()
            .filter(|s| read.contains(s.file.path.as_path()))
            .map(|s| RecordedShard {
                path: s.file.path.clone(),
                index: s.file.index,
                rows: s.rows,
                skip: s.skip,
            })
            .collect();
        let mut dataset = Self::prepare(contents.rows, data, selection, warnings)?;
        dataset.window = recorded;
        if dataset.samples.is_empty() {
            return Err(TrainError::NoSamples { dirs: describe_dirs(dirs), detail: dataset.empty_reason() });
        }
        Ok(dataset)
    }

    /// Exactly the shard slices recorded by an earlier [`Dataset::load`], for a resumed run.
    ///
    /// # Errors
    /// [`TrainError::ResumeMismatch`]-worthy problems come back as [`TrainError::NoSamples`] or
    /// [`TrainError::Data`]; the caller compares [`Dataset::fingerprint`].
    pub fn load_recorded(recorded: &[RecordedShard], data: &DataSection) -> Result<Dataset, TrainError> {
        let window = ReplayWindow {
            shards: recorded
                .iter()
                .map(|r| WindowShard {
                    file: ShardFile { index: r.index, path: r.path.clone() },
                    rows: r.rows,
                    skip: r.skip,
                })
                .collect(),
            skipped: Vec::new(),
        };
        let contents = window.read()?;
        let warnings: Vec<String> = contents.skipped.iter().map(ToString::to_string).collect();
        let mut dataset = Self::prepare(contents.rows, data, Selection::Training, warnings)?;
        dataset.window = recorded.to_vec();
        Ok(dataset)
    }

    /// A data set of the given samples (for tests and tools; no shards involved).
    ///
    /// # Errors
    /// [`TrainError::NoSamples`] if nothing usable remains.
    pub fn from_samples(samples: Vec<Sample>, data: &DataSection) -> Result<Dataset, TrainError> {
        let dataset = Self::prepare(samples, data, Selection::Training, Vec::new())?;
        if dataset.samples.is_empty() {
            return Err(TrainError::NoSamples {
                dirs: "the given samples".into(),
                detail: dataset.empty_reason(),
            });
        }
        Ok(dataset)
    }

    fn empty_reason(&self) -> String {
        if self.window_samples == 0 {
            "the window is empty".to_string()
        } else {
            format!(
                "{} samples in the window, {} dropped for weight 0, the rest unusable",
                self.window_samples, self.dropped
            )
        }
    }

    fn prepare(
        rows: Vec<Sample>,
        data: &DataSection,
        selection: Selection,
        mut warnings: Vec<String>,
    ) -> Result<Dataset, TrainError> {
        let window_samples = rows.len();
        let mut fingerprint = 0xcbf2_9ce4_8422_2325_u64;
        let mut samples = Vec::with_capacity(rows.len());
        let mut dropped = 0;
        let mut unusable = 0usize;
        let mut first_unusable = None;
        for sample in rows {
            let mut key = Vec::with_capacity(8 + 2 + 8 + 90);
            key.extend_from_slice(&sample.game_id.to_le_bytes());
            key.extend_from_slice(&sample.ply.to_le_bytes());
            key.extend_from_slice(&sample.seed.to_le_bytes());
            key.extend_from_slice(&sample.board);
            fingerprint = fingerprint.rotate_left(5) ^ fnv1a64(&key);
            let weight = if sample.full_search { data.full_search_weight } else { data.fast_search_weight };
            if weight == 0.0 || !selection.keeps(sample.game_id, data.holdout_games) {
                dropped += 1;
                continue;
            }
            match prepare_one(&sample, data, weight) {
                Ok(prepared) => samples.push(prepared),
                Err(detail) => {
                    unusable += 1;
                    first_unusable.get_or_insert_with(|| {
                        format!("game {} ply {}: {detail}", sample.game_id, sample.ply)
                    });
                }
            }
        }
        if let Some(first) = first_unusable {
            warnings.push(format!("skipped {unusable} unusable samples (first: {first})"));
        }
        Ok(Dataset {
            samples,
            window: Vec::new(),
            window_samples,
            dropped,
            warnings,
            fingerprint: format!("{fingerprint:016x}"),
        })
    }

    /// Samples that can be drawn.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether there is nothing to train on.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The batch of samples `items` (`(sample index, mirrored)`).
    ///
    /// # Panics
    /// Never for indices below [`Dataset::len`]; an index beyond it is skipped.
    pub fn batch(&self, items: &[(usize, bool)]) -> TrainBatch {
        let items: Vec<(&PreparedSample, bool)> =
            items.iter().filter_map(|&(i, m)| self.samples.get(i).map(|s| (s, m))).collect();
        let n = items.len();
        let mut inputs = Array4::<f32>::zeros((n, INPUT_PLANES, BOARD_ROWS, BOARD_COLS));
        let mut policy = Array2::<f32>::zeros((n, POLICY_SIZE));
        let mut wdl = Array2::<f32>::zeros((n, 3));
        let mut policy_weight = Array1::<f32>::zeros(n);
        let mut value_weight = Array1::<f32>::zeros(n);
        if let Some(flat) = inputs.as_slice_mut() {
            let (chunks, _) = flat.as_chunks_mut::<INPUT_SIZE>();
            for ((sample, mirrored), chunk) in items.iter().zip(chunks) {
                encode_position(&sample.position, &sample.history, chunk);
                if *mirrored {
                    mirror_planes(chunk);
                }
            }
        }
        for (k, (sample, mirrored)) in items.iter().enumerate() {
            for &(index, p) in &sample.policy {
                let index = usize::from(index);
                let index = if *mirrored { xq_nn::mirror_index(index).unwrap_or(index) } else { index };
                policy[[k, index]] += p;
            }
            for (j, &v) in sample.wdl.iter().enumerate() {
                wdl[[k, j]] = v;
            }
            policy_weight[k] = sample.policy_weight;
            value_weight[k] = sample.value_weight;
        }
        TrainBatch {
            inputs,
            policy,
            wdl,
            policy_weight: Some(policy_weight),
            value_weight: Some(value_weight),
        }
    }

    /// Each sample's position (unmirrored) with its WDL target, for baselines and tools.
    pub fn value_targets(&self) -> impl ExactSizeIterator<Item = (&Position, [f32; 3])> + '_ {
        self.samples.iter().map(|s| (&s.position, s.wdl))
    }

    /// The position of sample `index` (unmirrored), for tests and tools.
    pub fn position(&self, index: usize) -> Option<&Position> {
        self.samples.get(index).map(|s| &s.position)
    }
}

impl std::fmt::Debug for PreparedSample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} policy entries)", self.position.fen(), self.policy.len())
    }
}

fn describe_dirs(dirs: &[PathBuf]) -> String {
    dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
}

fn prepare_one(sample: &Sample, data: &DataSection, weight: f32) -> Result<PreparedSample, String> {
    let position = sample.position().map_err(|e| format!("position: {e}"))?;
    let side = position.side_to_move();
    let mut policy = Vec::with_capacity(sample.policy.len());
    let mut mass = 0.0f64;
    for &(mv, p) in &sample.policy {
        if !(p.is_finite() && p >= 0.0) {
            return Err(format!("policy probability {p}"));
        }
        let index = xq_nn::policy_index(mv, side)
            .ok_or_else(|| format!("policy move {mv:?} is not in the policy index"))?;
        if p > 0.0 {
            policy.push((index as u16, p));
            mass += f64::from(p);
        }
    }
    let trains_policy = sample.full_search || data.fast_search_policy;
    let policy_weight = if trains_policy && mass > 0.0 { weight } else { 0.0 };
    for entry in &mut policy {
        entry.1 = (f64::from(entry.1) / mass) as f32;
    }
    let wdl_mass: f32 = sample.wdl_target.iter().sum();
    if !(sample.wdl_target.iter().all(|v| v.is_finite() && *v >= 0.0) && wdl_mass > 0.0) {
        return Err(format!("WDL target {:?}", sample.wdl_target));
    }
    let result = sample.wdl_target.map(|v| v / wdl_mass);
    let q = data.value_target_root_q;
    let wdl = if q > 0.0 {
        let root_mass: f32 = sample.root_wdl.iter().sum();
        if !(sample.root_wdl.iter().all(|v| v.is_finite() && *v >= 0.0) && root_mass > 0.0) {
            return Err(format!("root WDL {:?}", sample.root_wdl));
        }
        std::array::from_fn(|k| (1.0 - q) * result[k] + q * sample.root_wdl[k] / root_mass)
    } else {
        result
    };
    Ok(PreparedSample {
        history: sample.history_features(),
        position,
        policy,
        wdl,
        policy_weight,
        value_weight: weight,
    })
}

/// Where a run is in its data: epoch `epoch`, next sample at `position` of that epoch's
/// permutation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataCursor {
    /// Passes started over the data (0-based).
    pub epoch: u64,
    /// Samples of this epoch's permutation already used.
    pub position: u64,
}

/// The generator state to save: the epoch generator is ChaCha8 seeded with `seed` on stream
/// `epoch`; `word_pos` is how far it has run (the permutation, then one draw per mirror flag).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RngState {
    /// The seed (`train.seed`).
    pub seed: u64,
    /// The stream (the epoch).
    pub stream: u64,
    /// Words consumed, as a decimal string (a `u128`, beyond JSON's safe integers).
    pub word_pos: String,
}

/// The seeded order of samples: each epoch a permutation drawn from its own generator, each
/// drawn sample mirrored with probability ½ (when mirroring is on).
pub struct Sampler {
    len: usize,
    seed: u64,
    mirror: bool,
    cursor: DataCursor,
    permutation: Vec<u32>,
    rng: ChaCha8Rng,
}

impl Sampler {
    /// The start of a run over `len` samples.
    pub fn new(len: usize, seed: u64, mirror: bool) -> Sampler {
        let (permutation, rng) = epoch_order(len, seed, 0);
        Sampler { len, seed, mirror, cursor: DataCursor::default(), permutation, rng }
    }

    /// The sampler of a run saved at `cursor` with generator state `rng`.
    ///
    /// # Errors
    /// A message if the state does not fit this data set and seed.
    pub fn resume(
        len: usize,
        seed: u64,
        mirror: bool,
        cursor: DataCursor,
        rng: &RngState,
    ) -> Result<Sampler, String> {
        if rng.seed != seed || rng.stream != cursor.epoch {
            return Err(format!(
                "generator state (seed {}, stream {}) does not match seed {seed}, epoch {}",
                rng.seed, rng.stream, cursor.epoch
            ));
        }
        if cursor.position > len as u64 {
            return Err(format!("data cursor at {} of an epoch of {len} samples", cursor.position));
        }
        let word_pos: u128 = rng
            .word_pos
            .parse()
            .map_err(|_| format!("generator word position {:?} is not a number", rng.word_pos))?;
        let (permutation, mut generator) = epoch_order(len, seed, cursor.epoch);
        if word_pos < generator.get_word_pos() {
            return Err(format!(
                "generator word position {word_pos} is before the end of the epoch's shuffle"
            ));
        }
        generator.set_word_pos(word_pos);
        Ok(Sampler { len, seed, mirror, cursor, permutation, rng: generator })
    }

    /// The next `size` samples as `(index, mirrored)`, continuing into the next epoch (a new
    /// permutation) when this one runs out.
    pub fn next_batch(&mut self, size: usize) -> Vec<(usize, bool)> {
        let mut out = Vec::with_capacity(size);
        if self.len == 0 {
            return out;
        }
        while out.len() < size {
            if self.cursor.position as usize >= self.len {
                self.cursor = DataCursor { epoch: self.cursor.epoch + 1, position: 0 };
                let (permutation, rng) = epoch_order(self.len, self.seed, self.cursor.epoch);
                self.permutation = permutation;
                self.rng = rng;
            }
            let index = self.permutation[self.cursor.position as usize] as usize;
            let mirrored = self.mirror && self.rng.random_bool(0.5);
            out.push((index, mirrored));
            self.cursor.position += 1;
        }
        out
    }

    /// Where the sampler is.
    pub fn cursor(&self) -> DataCursor {
        self.cursor
    }

    /// The generator state to save with the cursor.
    pub fn rng_state(&self) -> RngState {
        RngState { seed: self.seed, stream: self.cursor.epoch, word_pos: self.rng.get_word_pos().to_string() }
    }
}

fn epoch_order(len: usize, seed: u64, epoch: u64) -> (Vec<u32>, ChaCha8Rng) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(epoch);
    let mut permutation: Vec<u32> = (0..len as u32).collect();
    permutation.shuffle(&mut rng);
    (permutation, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_sampler_continues_the_same_sequence() {
        let mut whole = Sampler::new(10, 7, true);
        let sequence: Vec<(usize, bool)> = (0..9).flat_map(|_| whole.next_batch(4)).collect();
        for split in 0..9 {
            let mut first = Sampler::new(10, 7, true);
            let mut got: Vec<(usize, bool)> = (0..split).flat_map(|_| first.next_batch(4)).collect();
            let mut resumed = Sampler::resume(10, 7, true, first.cursor(), &first.rng_state()).unwrap();
            got.extend((split..9).flat_map(|_| resumed.next_batch(4)));
            assert_eq!(got, sequence, "split after {split} batches");
        }
        // Every epoch is a permutation, and mirroring happens about half the time.
        for epoch in sequence.chunks(10).take(3) {
            let mut indices: Vec<usize> = epoch.iter().map(|e| e.0).collect();
            indices.sort_unstable();
            assert_eq!(indices, (0..10).collect::<Vec<_>>());
        }
        let mirrored = sequence.iter().filter(|e| e.1).count();
        assert!((8..=28).contains(&mirrored), "{mirrored} of 36 mirrored");
        assert!(Sampler::new(10, 7, false).next_batch(10).iter().all(|e| !e.1));
        assert_ne!(Sampler::new(10, 8, true).next_batch(10), sequence[..10].to_vec(), "the seed matters");
    }

    #[test]
    fn a_sampler_state_of_another_seed_is_refused() {
        let sampler = Sampler::new(10, 7, true);
        assert!(Sampler::resume(10, 8, true, sampler.cursor(), &sampler.rng_state()).is_err());
        let cursor = DataCursor { epoch: 0, position: 11 };
        assert!(Sampler::resume(10, 7, true, cursor, &sampler.rng_state()).is_err());
    }

    fn sample(full_search: bool) -> Sample {
        let pos = Position::startpos();
        let moves = pos.legal_moves();
        Sample {
            game_id: 1,
            ply: 0,
            fen: pos.fen(),
            board: *pos.board_codes(),
            side_to_move: pos.side_to_move(),
            policy: vec![(moves[0], 3.0), (moves[1], 1.0)],
            full_search,
            root_wdl: [0.3, 0.4, 0.3],
            root_visits: 8,
            move_played: moves[0],
            result: 1,
            wdl_target: [1.0, 0.0, 0.0],
            termination: xq_core::Termination::MaxLength,
            article: String::new(),
            repetitions: 2,
            plies_since_capture: 60,
            limit_plies: 60,
            move_limit_plies: 120,
            model_id: "m".into(),
            config_hash: "c".into(),
            seed: 1,
        }
    }

    #[test]
    fn weights_follow_the_search_kind() {
        let rows = vec![sample(true), sample(false)];
        let data = DataSection { full_search_weight: 2.0, fast_search_weight: 0.5, ..DataSection::default() };
        let dataset = Dataset::from_samples(rows.clone(), &data).unwrap();
        let batch = dataset.batch(&[(0, false), (1, false)]);
        assert_eq!(
            batch.policy_weight.as_ref().unwrap().to_vec(),
            vec![2.0, 0.0],
            "fast searches train only the value"
        );
        assert_eq!(batch.value_weight.as_ref().unwrap().to_vec(), vec![2.0, 0.5]);
        // Policy targets are normalised.
        let row = batch.policy.row(0);
        assert_eq!(row.iter().sum::<f32>(), 1.0);
        assert_eq!(row.iter().fold(0.0f32, |a, &b| a.max(b)), 0.75);
        // History: the second occurrence has one earlier occurrence; the clock is 60/120.
        assert_eq!(batch.inputs[[0, 14, 3, 3]], 1.0);
        assert_eq!(batch.inputs[[0, 15, 3, 3]], 0.0);
        assert_eq!(batch.inputs[[0, 16, 3, 3]], 0.5);

        let with_policy = DataSection { fast_search_policy: true, ..data.clone() };
        let batch = Dataset::from_samples(rows.clone(), &with_policy).unwrap().batch(&[(1, false)]);
        assert_eq!(batch.policy_weight.unwrap().to_vec(), vec![0.5]);

        let drop_fast = DataSection { fast_search_weight: 0.0, ..data };
        let dataset = Dataset::from_samples(rows, &drop_fast).unwrap();
        assert_eq!((dataset.len(), dataset.dropped), (1, 1));
    }
}
