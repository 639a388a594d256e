//! What the loop has done, kept in `models/<run>/loop.json` and rewritten (temporary file +
//! rename) after every stage, so a killed run knows exactly which stage to continue.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::LoopError;

/// Version of the `loop.json` layout.
pub const STATE_FORMAT: u32 = 1;

/// The whole state of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopState {
    /// [`STATE_FORMAT`].
    pub format: u32,
    /// The ladder rating of the built-in evaluator that plays generation 0, the baseline the
    /// accepted models are compared with.
    #[serde(default)]
    pub baseline_ladder: Option<LadderRecord>,
    /// The fixed validation set, once played (`[validation]`).
    #[serde(default)]
    pub validation_set: Option<SelfplayRecord>,
    /// One record per generation started, in order.
    pub generations: Vec<GenerationRecord>,
    /// The final rating (`[final_rating]`), once begun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_rating: Option<FinalRatingRecord>,
}

/// One generation: self-play with the accepted model, a candidate trained, gated, promoted or
/// rejected, and (when promoted) rated on the ladder. A stage's record is present once the
/// stage has finished.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationRecord {
    /// 0, 1, 2, …
    pub generation: u32,
    /// The model that played self-play: a model id, or the built-in evaluator's name.
    pub player: String,
    /// Self-play, once finished.
    pub selfplay: Option<SelfplayRecord>,
    /// The teacher's games of a generation after the first promotion
    /// (`bootstrap.games_after_promotion`), once finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher: Option<SelfplayRecord>,
    /// Training, once finished.
    pub train: Option<TrainRecord>,
    /// The gate, once decided.
    pub gate: Option<GateRecord>,
    /// Whether the candidate was promoted, once it has been moved.
    pub promoted: Option<bool>,
    /// The candidate's ladder rating (accepted candidates only).
    pub ladder: Option<LadderRecord>,
    /// Wall seconds spent on the generation over all invocations.
    #[serde(default)]
    pub seconds: f64,
}

/// What self-play produced in a generation (counted from its shards, so a resumed stage is
/// counted once).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelfplayRecord {
    /// The shard directory, relative to the data root.
    pub dir: String,
    /// Games.
    pub games: u64,
    /// Positions (sample rows).
    pub positions: u64,
    /// Red wins.
    pub red_wins: u64,
    /// Black wins.
    pub black_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Games by termination name (`checkmate`, `perpetual_check`, `move_limit`, …).
    pub terminations: BTreeMap<String, u64>,
    /// Wall seconds of the invocation that finished the stage.
    pub seconds: f64,
    /// Games per hour in that invocation.
    pub games_per_hour: f64,
    /// Evaluator positions per second of its own time in that invocation (0 for teacher
    /// games and for batches played by workers).
    #[serde(default)]
    pub evaluations_per_second: f64,
    /// Share of that invocation's wall time spent outside the evaluator (tree search, rules,
    /// samples, files); 0 when no evaluator ran.
    #[serde(default)]
    pub outside_evaluator_share: f64,
    /// In a distributed run, the worker batches this generation claimed (`<label>/<name>`, as
    /// committed under `selfplay/` in the run's storage), in the order of the local shards.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<String>,
}

/// The candidate a generation trained.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainRecord {
    /// The candidate's model id.
    pub model_id: String,
    /// Training steps.
    pub steps: u64,
    /// Samples in the window it trained on.
    pub window_samples: u64,
    /// Final policy loss.
    pub policy_loss: f32,
    /// Final value loss.
    pub value_loss: f32,
    /// Final policy top-1 agreement with the search target.
    pub policy_top1: f32,
    /// Final value accuracy.
    pub value_accuracy: f32,
    /// Training throughput.
    pub samples_per_sec: f64,
    /// The candidate's scores on the validation sets, with their baselines.
    #[serde(default)]
    pub validation: Vec<xq_train::ValidationScore>,
}

/// The candidate against the accepted model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateRecord {
    /// The opponent: the accepted model's id or the built-in evaluator.
    pub opponent: String,
    /// Candidate wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Candidate losses.
    pub losses: u64,
    /// Elo of the candidate over the opponent with its 95% interval, when estimable (an end
    /// may be infinite: stored as `"inf"`/`"-inf"`).
    #[serde(default, with = "xq_eval::stats::json_f64::triple")]
    pub elo: Option<[f64; 3]>,
    /// `promote` or `reject`.
    pub verdict: String,
}

/// A model's rating against the fixed ladder of opponents.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderRecord {
    /// The rated model (id or built-in name).
    pub model: String,
    /// Performance Elo against the ladder with its 95% interval: `[elo, lower, upper]` (an end
    /// may be infinite: stored as `"inf"`/`"-inf"`).
    #[serde(default, with = "xq_eval::stats::json_f64::triple")]
    pub elo: Option<[f64; 3]>,
    /// Score per game against the ladder.
    pub score: f64,
    /// Per opponent: name and the model's wins, draws, losses.
    pub opponents: Vec<(String, [u64; 3])>,
    /// Per opponent, in `opponents` order: whether the model met the section's `threshold`
    /// against it (empty when the section has none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beats: Vec<bool>,
    /// Every player's time and nodes (visits) per move in these games.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub speed: Vec<xq_eval::report::PlayerSpeed>,
    /// The model placed on the section's calibrated scale (`[ladder.scale]`), once played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<xq_eval::scale::Rating>,
}

/// The run's last accepted model rated once the run is over (`[final_rating]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinalRatingRecord {
    /// The rated generation.
    pub generation: u32,
    /// The section it is rated with: another section (or model) rates again.
    pub section: crate::config::LadderSection,
    /// The rating, once its games are played.
    pub rating: Option<LadderRecord>,
}

impl LoopState {
    /// Reads `path`, or a fresh state when it does not exist.
    ///
    /// # Errors
    /// [`LoopError::State`] for a file that cannot be read or parsed.
    pub fn load_or_new(path: &Path) -> Result<LoopState, LoopError> {
        match std::fs::read(path) {
            Ok(bytes) => {
                let state: LoopState = serde_json::from_slice(&bytes)
                    .map_err(|e| LoopError::State(format!("{}: {e}", path.display())))?;
                if state.format != STATE_FORMAT {
                    return Err(LoopError::State(format!(
                        "{}: format {}, this build reads {STATE_FORMAT}",
                        path.display(),
                        state.format
                    )));
                }
                Ok(state)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(LoopState { format: STATE_FORMAT, ..LoopState::default() })
            }
            Err(e) => Err(LoopError::State(format!("{}: {e}", path.display()))),
        }
    }

    /// Writes the state to `path` through a temporary file and a rename.
    ///
    /// # Errors
    /// [`LoopError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), LoopError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| LoopError::State(e.to_string()))?;
        xq_files::write_atomic(path, text.as_bytes()).map_err(crate::io_error(path))
    }

    /// Generations whose candidate has been promoted or rejected.
    pub fn completed(&self) -> usize {
        self.generations
            .iter()
            .filter(|g| g.promoted.is_some() && (g.ladder.is_some() || g.promoted == Some(false)))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resumed run compares what it reads back with what it wrote; a float off by one ulp
    /// (serde_json's fast parser without `float_roundtrip`) made that comparison fail.
    #[test]
    fn saved_state_reads_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("loop.json");
        let awkward = [1_106_042.262_796_563_3, 0.019_529_091, 0.1 + 0.2, 1e-300, 1e300 / 3.0];
        let generations = awkward
            .iter()
            .enumerate()
            .map(|(i, &x)| GenerationRecord {
                generation: i as u32,
                player: format!("g{i:03}"),
                selfplay: Some(SelfplayRecord {
                    dir: format!("selfplay/g{i:03}"),
                    seconds: x,
                    games_per_hour: x * 7.0 / 3.0,
                    ..SelfplayRecord::default()
                }),
                seconds: x / 11.0,
                ..GenerationRecord::default()
            })
            .collect();
        let state = LoopState { format: STATE_FORMAT, generations, ..LoopState::default() };
        state.save(&path).unwrap();
        let read = LoopState::load_or_new(&path).unwrap();
        for (a, b) in state.generations.iter().zip(&read.generations) {
            let (sa, sb) = (a.selfplay.as_ref().unwrap(), b.selfplay.as_ref().unwrap());
            assert_eq!(sa.games_per_hour.to_bits(), sb.games_per_hour.to_bits());
            assert_eq!(sa.seconds.to_bits(), sb.seconds.to_bits());
            assert_eq!(a.seconds.to_bits(), b.seconds.to_bits());
        }
        assert_eq!(read, state);
    }

    #[test]
    fn infinite_elo_bounds_survive_the_state_file() {
        // Before: serde_json wrote an infinite bound (one game pair, a clean sweep) as null and
        // the next run could not read loop.json back.
        let gate = GateRecord { elo: Some([f64::INFINITY, 12.5, f64::INFINITY]), ..GateRecord::default() };
        let ladder = LadderRecord { elo: Some([-30.0, f64::NEG_INFINITY, 40.0]), ..LadderRecord::default() };
        let text = serde_json::to_string(&(gate.clone(), ladder.clone())).unwrap();
        assert!(text.contains(r#"["inf",12.5,"inf"]"#), "{text}");
        let back: (GateRecord, LadderRecord) = serde_json::from_str(&text).unwrap();
        assert_eq!(back, (gate, ladder));
        let none: GateRecord =
            serde_json::from_str(&serde_json::to_string(&GateRecord::default()).unwrap()).unwrap();
        assert_eq!(none.elo, None);
    }
}
