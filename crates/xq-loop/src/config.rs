//! The loop's configuration: one TOML file with a section per stage (`configs/loop-*.toml`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xq_core::GameRules;
use xq_eval::events::{Format, GateThreshold, UntilDecided};
use xq_eval::runner::{Limits, PlayerSpec};
use xq_mcts::SearchParams;
use xq_nn::{CpuPrecision, DeviceSetting};
use xq_selfplay::{BuiltinEvaluator, SelfplaySection};
use xq_train::TrainConfig;

use crate::LoopError;

/// `[run]`: what the run is called, where it lives and how long it goes on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSection {
    /// The run's name: its data go to `<data_root>/<name>/`, its models to `<models_root>/<name>/`.
    pub name: String,
    /// Generations to complete (self-play → train → gate each); the run stops after this many.
    pub generations: u32,
    /// Stop starting new generations after this many minutes of this invocation (0: no budget).
    pub time_budget_minutes: f64,
    /// The seed every stage's seed derives from.
    pub seed: u64,
    /// Where networks run (`cpu`, or `gpu` in builds with the GPU backend).
    pub device: DeviceSetting,
    /// The arithmetic of the networks' CPU products wherever they search: `f32`, or `int8`
    /// on CPUs with AVX-512 VNNI (docs/MODEL.md, "Precision").
    pub precision: CpuPrecision,
    /// Root of the data directories.
    pub data_root: PathBuf,
    /// Root of the model directories.
    pub models_root: PathBuf,
}

impl Default for RunSection {
    fn default() -> Self {
        RunSection {
            name: "run".into(),
            generations: 2,
            time_budget_minutes: 0.0,
            seed: 1,
            device: DeviceSetting::Cpu,
            precision: CpuPrecision::F32,
            data_root: PathBuf::from("data"),
            models_root: PathBuf::from("models"),
        }
    }
}

/// `[bootstrap]`: self-play while no network is accepted yet.
///
/// Until a candidate wins its gate, the built-in evaluator (`selfplay.evaluator`) plays, or,
/// with `teacher`, alpha-beta plays teacher games (`xq_selfplay::run_teacher_selfplay`). Both
/// cost almost nothing per position, so these generations can afford far more games than a
/// network's, and the first networks learn from a data set large enough to learn from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BootstrapSection {
    /// Games per generation until a network is accepted (0: `selfplay.games`).
    pub games: u64,
    /// Alpha-beta teacher games instead of MCTS over the built-in evaluator:
    /// `{ depth = 4, random_move_probability = 0.2 }`.
    pub teacher: Option<xq_selfplay::TeacherConfig>,
    /// Teacher games played in every generation after the first promotion too, beside the
    /// network's self-play (0: none; needs `teacher`). A small network stays behind its teacher
    /// for far longer than a short run lasts, and fresh teacher games every generation keep it
    /// from memorising the first ones.
    pub games_after_promotion: u64,
    /// Phases those teacher games out: `games_after_promotion` of them up to generation
    /// `start`, linearly fewer after it, and none from generation `end` on, so the later
    /// networks learn from their own games alone: `teacher_phase_out = { start = 6, end = 12 }`.
    /// Absent: the teacher plays `games_after_promotion` every generation.
    pub teacher_phase_out: Option<TeacherPhaseOut>,
}

/// `[bootstrap] teacher_phase_out`: the generations over which the teacher's games after the
/// first promotion go from `games_after_promotion` to none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeacherPhaseOut {
    /// The last generation with the full `games_after_promotion`.
    pub start: u32,
    /// The first generation with no teacher games (after `start`).
    pub end: u32,
}

impl BootstrapSection {
    /// Teacher games beside the network's self-play in `generation` (after the first
    /// promotion): `games_after_promotion`, scaled down by [`BootstrapSection::teacher_phase_out`].
    ///
    /// ```
    /// use xq_loop::{BootstrapSection, TeacherPhaseOut};
    /// let bootstrap = BootstrapSection {
    ///     games_after_promotion: 1500,
    ///     teacher_phase_out: Some(TeacherPhaseOut { start: 4, end: 8 }),
    ///     ..BootstrapSection::default()
    /// };
    /// let games: Vec<u64> = (3..=9).map(|g| bootstrap.teacher_games_in(g)).collect();
    /// assert_eq!(games, [1500, 1500, 1125, 750, 375, 0, 0]);
    /// ```
    pub fn teacher_games_in(&self, generation: u32) -> u64 {
        let full = self.games_after_promotion;
        match self.teacher_phase_out {
            None => full,
            Some(TeacherPhaseOut { start, .. }) if generation <= start => full,
            Some(TeacherPhaseOut { end, .. }) if generation >= end => 0,
            Some(TeacherPhaseOut { start, end }) => {
                let left = u64::from(end - generation);
                let span = u64::from(end - start);
                (full * left).div_ceil(span).min(full)
            }
        }
    }
}

/// `[validation]`: the fixed set every candidate is scored on.
///
/// Played once per run, before generation 0, by the bootstrap's player (the teacher of
/// `[bootstrap]`, else MCTS over `selfplay.evaluator`) with the run's `[search]` and `[rules]`,
/// seeded apart from self-play:
/// the same positions score every generation, so the figures compare across the run. Each
/// generation's own held-back games (`[train.data] holdout_games`) are scored beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ValidationSection {
    /// Games in the fixed set (0: none).
    pub games: u64,
}

impl Default for ValidationSection {
    fn default() -> Self {
        ValidationSection { games: 200 }
    }
}

/// `[gate]`: how a candidate is compared with the accepted model. Both search with the run's
/// `[search]`, the search that made their data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateSection {
    /// Game pairs (each opening with colours swapped).
    pub pairs: u64,
    /// Both players' budget per move: `{ visits = N }`, `{ movetime_ms = T }` or both.
    pub limits: Limits,
    /// When the candidate is promoted.
    pub threshold: GateThreshold,
    /// Games played at once.
    pub concurrency: usize,
    /// Games still running after this many plies (from the start position) are drawn.
    pub max_plies: u32,
    /// Openings of the bundled book to use (0: the initial position only).
    pub openings: usize,
    /// Generation 0 has no accepted model: its candidate must beat MCTS over this built-in
    /// evaluator, with the same search and budget, to become the first accepted model (default
    /// `uniform`, the zero-knowledge search).
    pub first_opponent: BuiltinEvaluator,
}

impl Default for GateSection {
    fn default() -> Self {
        GateSection {
            pairs: 10,
            limits: Limits { visits: Some(64), ..Limits::default() },
            threshold: GateThreshold::Score { min: 0.55 },
            concurrency: 2,
            max_plies: xq_play::DEFAULT_MAX_PLIES,
            openings: 27,
            first_opponent: BuiltinEvaluator::Uniform,
        }
    }
}

/// `[ladder]`: the fixed opponents every accepted model is rated against, at the same budget
/// per move (equal time, when `limits` gives a `movetime_ms`). `[final_rating]` has the same
/// keys and rates the run's last accepted model once the run is over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LadderSection {
    /// Rate at all (`[ladder]`: on by default; `[final_rating]`: on once the section is given).
    pub enabled: bool,
    /// Game pairs against each opponent.
    pub pairs: u32,
    /// Every player's budget per move, the model's and the opponents' alike (an opponent's
    /// own `depth`, `visits` or `movetime_ms` still applies to it).
    pub limits: Limits,
    /// The opponents, as event players (`[[ladder.opponents]]`); a tree-search opponent
    /// without a `search` searches with the run's `[search]`. Default: MCTS over the uniform
    /// evaluator, the material-greedy player and alpha-beta at depth 2.
    pub opponents: Vec<PlayerSpec>,
    /// Games played at once.
    pub concurrency: usize,
    /// Games still running after this many plies (from the start position) are drawn.
    pub max_plies: u32,
    /// Openings of the bundled book to use (0: the initial position only).
    pub openings: usize,
    /// When given, the rating says against which opponents the model meets it over the games
    /// played: `{ kind = "sprt", elo0 = 0, elo1 = 60, alpha = 0.05, beta = 0.05 }` reads "beats"
    /// as an SPRT that accepted H1 (all `pairs` are played; undecided is not beaten).
    pub threshold: Option<GateThreshold>,
    /// With an SPRT `threshold`: an opponent the test leaves undecided after `pairs` plays on,
    /// one pair at a time, until the test decides or this many pairs are played
    /// ([`xq_eval::events::UntilDecided`]). Absent: `pairs` and no more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_pairs: Option<u32>,
    /// `[ladder.scale]` / `[final_rating.scale]`: besides the opponents, place the model on a
    /// calibrated strength scale ([`xq_eval::scale::rate`]) at the section's budget per move,
    /// the anchors at their own. Absent: no scale rating.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<ScaleRating>,
    /// `[final_rating.model_search]`: how the rated model searches where it should not search
    /// as the run's self-play and gates do, e.g. at 100 ms a move
    /// `{ leaves_per_step = 16, precision = "int8" }`, as `xq engine` plays. Absent: the run's
    /// `[search]` and `[run] precision`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_search: Option<ModelSearch>,
}

/// The rated model's search where a ladder changes it from the run's ([`LadderSection::model_search`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSearch {
    /// Leaves gathered a step and evaluated as one batch (`search.leaves_per_step` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves_per_step: Option<u32>,
    /// The products' precision on the CPU (`[run] precision` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<CpuPrecision>,
}

impl ModelSearch {
    /// `player` (a tree search over a checkpoint) searching as this says.
    pub fn apply(&self, player: PlayerSpec) -> PlayerSpec {
        match player {
            PlayerSpec::Mcts { name, evaluator, search, visits, movetime_ms, tc } => PlayerSpec::Mcts {
                name,
                evaluator: match self.precision {
                    Some(precision) => evaluator.with_precision(precision),
                    None => evaluator,
                },
                search: search.map(|s| SearchParams {
                    leaves_per_step: self.leaves_per_step.unwrap_or(s.leaves_per_step),
                    ..s
                }),
                visits,
                movetime_ms,
                tc,
            },
            other => other,
        }
    }
}

/// `[ladder.scale]`: a model placed on a calibrated scale by playing the anchors nearest its
/// estimate, step by step, until its 95% interval is under `target_half_width` or `max_games`
/// are played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleRating {
    /// The scale file (`data/scale/anchors-v1.json`, made by `xq eval calibrate`).
    pub file: PathBuf,
    /// Game pairs against one anchor before the next anchor is chosen.
    #[serde(default = "default_scale_pairs_per_step")]
    pub pairs_per_step: u32,
    /// Stop once the 95% half-width (anchors fixed) is under this many Elo.
    #[serde(default = "default_scale_target")]
    pub target_half_width: f64,
    /// Stop after this many games even if the interval is wider.
    pub max_games: usize,
}

fn default_scale_pairs_per_step() -> u32 {
    4
}

fn default_scale_target() -> f64 {
    xq_eval::scale::DEFAULT_TARGET_HALF_WIDTH
}

impl ScaleRating {
    /// The rating of `player` this section asks for.
    pub fn rate_config(&self, player: PlayerSpec) -> xq_eval::scale::RateConfig {
        xq_eval::scale::RateConfig {
            player,
            pairs_per_step: self.pairs_per_step,
            target_half_width: self.target_half_width,
            max_games: self.max_games,
        }
    }
}

impl LadderSection {
    /// `[final_rating]` when the file has none: off.
    pub fn final_rating_default() -> LadderSection {
        LadderSection { enabled: false, ..LadderSection::default() }
    }

    fn validate(&self, section: &str) -> Result<(), LoopError> {
        let bad = |m: String| Err(LoopError::Config(m));
        if !self.enabled {
            return Ok(());
        }
        if self.pairs == 0 || self.concurrency == 0 {
            return bad(format!("{section}.pairs and {section}.concurrency must be at least 1"));
        }
        if self.opponents.is_empty() {
            return bad(format!("{section}.opponents must name at least one opponent"));
        }
        if self.model_search.is_some_and(|m| m.leaves_per_step == Some(0)) {
            return bad(format!("{section}.model_search.leaves_per_step must be at least 1"));
        }
        if let Some(test) = self.threshold.as_ref().and_then(GateThreshold::sprt) {
            test.validate().map_err(|e| LoopError::Config(format!("{section}.threshold: {e}")))?;
        }
        if let Some(max_pairs) = self.max_pairs {
            if self.threshold.as_ref().and_then(GateThreshold::sprt).is_none() {
                return bad(format!("{section}.max_pairs needs an SPRT threshold to decide when to stop"));
            }
            if max_pairs < self.pairs {
                return bad(format!(
                    "{section}.max_pairs ({max_pairs}) is below {section}.pairs ({})",
                    self.pairs
                ));
            }
        }
        if let Some(scale) = &self.scale {
            // The player is checked when it is known; the numbers can be checked now.
            let placeholder = PlayerSpec::Random { name: "model".into() };
            scale
                .rate_config(placeholder)
                .validate()
                .map_err(|e| LoopError::Config(format!("{section}.scale: {e}")))?;
        }
        Ok(())
    }

    /// The event format: `pairs` against every opponent, and more against the undecided ones
    /// up to `max_pairs` when the threshold is an SPRT.
    pub fn format(&self) -> Format {
        let test = self.threshold.as_ref().and_then(GateThreshold::sprt);
        let until_decided =
            self.max_pairs.zip(test).map(|(max_pairs, sprt)| UntilDecided { sprt, max_pairs });
        Format::Gauntlet { pairs: self.pairs, until_decided }
    }
}

impl Default for LadderSection {
    fn default() -> Self {
        LadderSection {
            enabled: true,
            pairs: 4,
            limits: Limits { visits: Some(64), ..Limits::default() },
            opponents: vec![
                PlayerSpec::Mcts {
                    name: "mcts-uniform".into(),
                    evaluator: BuiltinEvaluator::Uniform.into(),
                    search: None,
                    visits: None,
                    movetime_ms: None,
                    tc: None,
                },
                PlayerSpec::Greedy { name: "greedy".into() },
                PlayerSpec::Alphabeta {
                    name: "alphabeta-d2".into(),
                    depth: Some(2),
                    nodes: None,
                    movetime_ms: None,
                    tc: None,
                },
            ],
            concurrency: 2,
            max_plies: xq_play::DEFAULT_MAX_PLIES,
            openings: 27,
            threshold: None,
            max_pairs: None,
            scale: None,
            model_search: None,
        }
    }
}

/// A whole loop configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopConfig {
    /// `[run]`.
    #[serde(default)]
    pub run: RunSection,
    /// `[selfplay]`: `games` is per generation; `evaluator` plays generation 0.
    #[serde(default)]
    pub selfplay: SelfplaySection,
    /// `[bootstrap]`: self-play before the first promotion.
    #[serde(default)]
    pub bootstrap: BootstrapSection,
    /// `[rules]`: the rules of every game of the run.
    #[serde(default)]
    pub rules: GameRules,
    /// `[search]`: the search of self-play, and of the gate's and ladder's tree searches.
    #[serde(default)]
    pub search: SearchParams,
    /// `[train]`: the trainer's configuration (its own sections below it).
    pub train: TrainConfig,
    /// `[validation]`.
    #[serde(default)]
    pub validation: ValidationSection,
    /// `[gate]`.
    #[serde(default)]
    pub gate: GateSection,
    /// `[ladder]`.
    #[serde(default)]
    pub ladder: LadderSection,
    /// `[final_rating]`: when the run is over (its generations done or its time budget spent),
    /// its last accepted model plays these opponents at this budget, typically at equal time
    /// and with more pairs than a generation's ladder can afford. Rated again when the last
    /// accepted model or the section changes.
    #[serde(default = "LadderSection::final_rating_default")]
    pub final_rating: LadderSection,
}

impl LoopConfig {
    /// Reads and checks a TOML file.
    ///
    /// # Errors
    /// [`LoopError::Config`] naming the file and the key or value at fault.
    pub fn load(path: &Path) -> Result<LoopConfig, LoopError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LoopError::Config(format!("{}: {e}", path.display())))?;
        LoopConfig::from_toml(&text).map_err(|e| match e {
            LoopError::Config(m) => LoopError::Config(format!("{}: {m}", path.display())),
            other => other,
        })
    }

    /// Parses and checks TOML text. Unknown keys are errors naming the key.
    ///
    /// # Errors
    /// [`LoopError::Config`].
    pub fn from_toml(text: &str) -> Result<LoopConfig, LoopError> {
        let config: LoopConfig = toml::from_str(text).map_err(|e| LoopError::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks what serde cannot.
    ///
    /// # Errors
    /// [`LoopError::Config`] naming the value.
    pub fn validate(&self) -> Result<(), LoopError> {
        let bad = |m: &str| Err(LoopError::Config(m.to_string()));
        let name = &self.run.name;
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') {
            return bad("run.name must be a plain directory name");
        }
        if self.run.generations == 0 {
            return bad("run.generations must be at least 1");
        }
        if !(self.run.time_budget_minutes.is_finite() && self.run.time_budget_minutes >= 0.0) {
            return bad("run.time_budget_minutes must be 0 (none) or positive");
        }
        if self.selfplay.games == 0 {
            return bad("selfplay.games (per generation) must be at least 1");
        }
        if self.gate.pairs == 0 || self.gate.concurrency == 0 {
            return bad("gate.pairs and gate.concurrency must be at least 1");
        }
        self.ladder.validate("ladder")?;
        self.final_rating.validate("final_rating")?;
        self.selfplay_config().validate().map_err(LoopError::Config)?;
        if let Some(teacher) = &self.bootstrap.teacher {
            teacher.validate().map_err(|e| LoopError::Config(format!("bootstrap.teacher: {e}")))?;
        } else if self.bootstrap.games_after_promotion > 0 {
            return bad("bootstrap.games_after_promotion needs bootstrap.teacher");
        }
        if let Some(phase_out) = self.bootstrap.teacher_phase_out {
            if phase_out.end <= phase_out.start {
                return bad("bootstrap.teacher_phase_out: end must come after start");
            }
            if self.bootstrap.games_after_promotion == 0 {
                return bad("bootstrap.teacher_phase_out needs bootstrap.games_after_promotion");
            }
        }
        self.train.validate().map_err(|e| LoopError::Config(format!("train: {e}")))?;
        Ok(())
    }

    /// Self-play games of a generation: `bootstrap.games` while the built-in evaluator plays
    /// (`network_plays` false), `selfplay.games` once a network does.
    pub fn selfplay_games(&self, network_plays: bool) -> u64 {
        if network_plays || self.bootstrap.games == 0 { self.selfplay.games } else { self.bootstrap.games }
    }

    /// The self-play stage's configuration.
    pub fn selfplay_config(&self) -> xq_selfplay::SelfplayConfig {
        xq_selfplay::SelfplayConfig {
            selfplay: self.selfplay.clone(),
            rules: self.rules,
            search: self.search.clone(),
        }
    }

    /// The configuration as saved in the run (`models/<run>/config.toml`).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_else(|e| format!("# not representable as TOML: {e}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "[train.model]\nblocks = 1\nchannels = 8\n";

    #[test]
    fn bootstrap_games_apply_only_while_the_builtin_evaluator_plays() {
        let mut config = LoopConfig::from_toml(MINIMAL).unwrap();
        config.selfplay.games = 40;
        assert_eq!(config.selfplay_games(false), 40, "no [bootstrap]: selfplay.games throughout");
        config.bootstrap.games = 500;
        assert_eq!(config.selfplay_games(false), 500);
        assert_eq!(config.selfplay_games(true), 40);
    }

    #[test]
    fn teacher_games_after_promotion_need_a_teacher() {
        let err = LoopConfig::from_toml(&format!("{MINIMAL}[bootstrap]\ngames_after_promotion = 10\n"))
            .unwrap_err();
        assert!(err.to_string().contains("bootstrap.teacher"), "{err}");
        let config = LoopConfig::from_toml(&format!(
            "{MINIMAL}[bootstrap]\ngames_after_promotion = 10\nteacher = {{ depth = 2 }}\n"
        ))
        .unwrap();
        assert_eq!(config.bootstrap.games_after_promotion, 10);
    }

    #[test]
    fn the_teacher_phases_out_between_the_named_generations() {
        let teacher = "teacher = { depth = 2 }\ngames_after_promotion = 100";
        let config = LoopConfig::from_toml(&format!(
            "{MINIMAL}[bootstrap]\n{teacher}\nteacher_phase_out = {{ start = 2, end = 5 }}\n"
        ))
        .unwrap();
        let games: Vec<u64> = (0..7).map(|g| config.bootstrap.teacher_games_in(g)).collect();
        assert_eq!(games, [100, 100, 100, 67, 34, 0, 0]);
        for bad in ["{ start = 5, end = 5 }", "{ start = 5, end = 2 }", "{ start = 1, end = 3, after = 2 }"] {
            let text = format!("{MINIMAL}[bootstrap]\n{teacher}\nteacher_phase_out = {bad}\n");
            assert!(LoopConfig::from_toml(&text).is_err(), "{bad}");
        }
        let without_games = format!(
            "{MINIMAL}[bootstrap]\nteacher = {{ depth = 2 }}\nteacher_phase_out = {{ start = 1, end = 3 }}\n"
        );
        let err = LoopConfig::from_toml(&without_games).unwrap_err();
        assert!(err.to_string().contains("games_after_promotion"), "{err}");
    }

    #[test]
    fn final_rating_plays_on_until_decided_only_with_an_sprt() {
        let section = |keys: &str| format!("{MINIMAL}[final_rating]\npairs = 20\n{keys}\n");
        let sprt = "threshold = { kind = \"sprt\", elo0 = 0, elo1 = 60, alpha = 0.05, beta = 0.05 }";
        let config = LoopConfig::from_toml(&section(&format!("max_pairs = 40\n{sprt}"))).unwrap();
        let Format::Gauntlet { pairs: 20, until_decided: Some(until) } = config.final_rating.format() else {
            panic!("{:?}", config.final_rating.format());
        };
        assert_eq!(until.max_pairs, 40);
        assert_eq!(Some(until.sprt), config.final_rating.threshold.and_then(|t| t.sprt()));
        let config = LoopConfig::from_toml(&section(sprt)).unwrap();
        assert_eq!(config.final_rating.format(), Format::Gauntlet { pairs: 20, until_decided: None });

        let err = LoopConfig::from_toml(&section("max_pairs = 40")).unwrap_err();
        assert!(err.to_string().contains("final_rating.max_pairs needs an SPRT"), "{err}");
        let err = LoopConfig::from_toml(&section(&format!("max_pairs = 10\n{sprt}"))).unwrap_err();
        assert!(err.to_string().contains("below final_rating.pairs"), "{err}");
    }

    #[test]
    fn unknown_bootstrap_key_is_named() {
        let err = LoopConfig::from_toml(&format!("{MINIMAL}[bootstrap]\ngame = 10\n")).unwrap_err();
        assert!(err.to_string().contains("game"), "{err}");
    }
}
