//! Running generations: each stage reads what the previous one left on disk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use xq_core::GameResult;
use xq_data::{GameRecord as GameRow, Sample, list_shards, read_games_dir, shard_row_count};
use xq_eval::events::{Format, GateVerdict};
use xq_eval::report::EventReport;
use xq_eval::runner::{Adjudication, Limits, PlayerSpec, RunConfig, RunOptions, run_event};
use xq_eval::scale::{PlayOptions, ScaleFile, ScaleProgress, rate};
use xq_eval::stats::{EloEstimate, Pentanomial, Wdl};
use xq_nn::EvaluatorSpec;
use xq_play::derive_seed;
use xq_selfplay::{BuiltinEvaluator, SelfplayRun, run_selfplay, run_teacher_selfplay};
use xq_train::{TrainRun, train};

use crate::config::{LadderSection, LoopConfig, ScaleRating};
use crate::remote::RemoteRun;
use crate::state::{
    FinalRatingRecord, GateRecord, GenerationRecord, LadderRecord, LoopState, SelfplayRecord, TrainRecord,
};
use crate::{LoopError, io_error};

/// Salts mixed into the run seed so each stage of each generation draws its own numbers.
const SELFPLAY_SALT: u64 = 0x5E1F_0000_0000_0001;
const TRAIN_SALT: u64 = 0x7EA1_0000_0000_0002;
const GATE_SALT: u64 = 0x6A7E_0000_0000_0003;
const LADDER_SALT: u64 = 0x1ADD_0000_0000_0004;
const VALIDATION_SALT: u64 = 0x7A11_0000_0000_0005;
const TEACHER_SALT: u64 = 0x7EAC_0000_0000_0006;

/// Which ladder event a seed is drawn for: every generation's ladder shares one, so each model
/// meets the ladder on the same openings; the final rating has its own.
#[derive(Clone, Copy)]
enum Rating {
    Generation,
    Final,
}

/// Knobs of one invocation that are not part of the run.
#[derive(Clone, Debug, Default)]
pub struct LoopOptions {
    /// Show progress bars and the per-generation lines.
    pub progress: bool,
    /// Stop after finishing this many generations in this invocation (the rest on a later one).
    pub max_generations_this_run: Option<u32>,
}

/// What an invocation did.
#[derive(Clone, Debug)]
pub struct LoopSummary {
    /// The run's state after the invocation.
    pub state: LoopState,
    /// Generations finished by this invocation.
    pub generations_this_run: u32,
    /// Whether the time budget stopped the run before its last generation.
    pub stopped_by_budget: bool,
    /// The accepted model's checkpoint directory, if any model has been promoted.
    pub accepted: Option<PathBuf>,
    /// The run report.
    pub report: PathBuf,
    /// Wall seconds of the invocation.
    pub seconds: f64,
}

/// The directories and files of a run.
#[derive(Clone, Debug)]
pub struct RunPaths {
    /// `<data_root>/<run>`.
    pub data: PathBuf,
    /// `<models_root>/<run>`.
    pub models: PathBuf,
}

impl RunPaths {
    /// The paths of `config`'s run.
    pub fn new(config: &LoopConfig) -> RunPaths {
        RunPaths {
            data: config.run.data_root.join(&config.run.name),
            models: config.run.models_root.join(&config.run.name),
        }
    }

    /// Self-play shards of a generation, named after the player.
    pub fn selfplay(&self, generation: u32, player: &str) -> PathBuf {
        self.data.join("selfplay").join(format!("{}-{player}", generation_name(generation)))
    }

    /// The trainer's output for a generation, before the gate.
    pub fn candidate(&self, generation: u32) -> PathBuf {
        self.models.join("candidates").join(generation_name(generation))
    }

    /// A promoted candidate.
    pub fn accepted(&self, generation: u32) -> PathBuf {
        self.models.join("accepted").join(generation_name(generation))
    }

    /// A rejected candidate.
    pub fn rejected(&self, generation: u32) -> PathBuf {
        self.models.join("rejected").join(generation_name(generation))
    }

    /// The gate's event directory.
    pub fn gate(&self, generation: u32) -> PathBuf {
        self.models.join("gates").join(generation_name(generation))
    }

    /// The fixed validation set's shards.
    pub fn validation(&self) -> PathBuf {
        self.data.join("validation").join("fixed")
    }

    /// A ladder gauntlet's event directory (`baseline` or `gNNN`).
    pub fn ladder(&self, label: &str) -> PathBuf {
        self.models.join("ladder").join(label)
    }

    /// `loop.json`.
    pub fn state(&self) -> PathBuf {
        self.models.join("loop.json")
    }

    /// The effective configuration saved with the run.
    pub fn config(&self) -> PathBuf {
        self.models.join("config.toml")
    }

    /// The run report.
    pub fn report(&self) -> PathBuf {
        self.models.join("report.md")
    }
}

/// `g000`, `g001`, …
pub(crate) fn generation_name(generation: u32) -> String {
    format!("g{generation:03}")
}

/// Runs (or continues) the loop of `config` until its generations are done, its time budget
/// is spent, or `options` says to stop.
///
/// # Errors
/// [`LoopError`] from any stage; what finished before the error stays recorded.
pub fn run_loop(config: &LoopConfig, options: &LoopOptions) -> Result<LoopSummary, LoopError> {
    run_loop_with(config, options, None)
}

/// Runs (or continues) `config`'s loop as the coordinator of a distributed run: the run lives
/// in `remote`'s storage, self-play workers (`xq worker`) play the games, and this process
/// waits for their batches, then trains, gates, promotes and rates as [`run_loop`] does,
/// recording every step in the storage's `loop.json`. It keeps a local cache and, when that
/// is lost, brings back from storage what the next generation needs.
///
/// # Errors
/// [`LoopError`] from any stage or from storage; what finished before the error stays recorded.
pub fn run_distributed(
    config: &LoopConfig,
    options: &LoopOptions,
    remote: &RemoteRun,
) -> Result<LoopSummary, LoopError> {
    config.validate()?;
    remote.store.check_create_if_absent()?;
    remote.publish_config(config)?;
    let local = remote.local_config(config);
    remote.restore_state(&RunPaths::new(&local))?;
    run_loop_with(&local, options, Some(remote))
}

fn run_loop_with(
    config: &LoopConfig,
    options: &LoopOptions,
    remote: Option<&RemoteRun>,
) -> Result<LoopSummary, LoopError> {
    config.validate()?;
    // A scale that cannot be read fails now, not after a generation's self-play and training.
    for (section, ladder) in [("ladder", &config.ladder), ("final_rating", &config.final_rating)] {
        if let Some(scale) = ladder.scale.as_ref().filter(|_| ladder.enabled) {
            ScaleFile::load(&scale.file)
                .map_err(|e| LoopError::Config(format!("{section}.scale: the scale {e}")))?;
        }
    }
    let started = Instant::now();
    let paths = RunPaths::new(config);
    for dir in [&paths.data, &paths.models] {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    check_or_save_config(config, &paths)?;
    let mut state = LoopState::load_or_new(&paths.state())?;
    if let Some(remote) = remote {
        remote.restore_cache(&paths, &mut state)?;
    }
    let runner = Runner { config, paths: &paths, progress: options.progress, remote };

    if config.validation.games > 0 && state.validation_set.is_none() {
        state.validation_set = Some(runner.validation_set()?);
        runner.save(&state)?;
    }

    if config.ladder.enabled && state.baseline_ladder.is_none() {
        let baseline = runner.builtin_spec(config.selfplay.evaluator, "baseline");
        state.baseline_ladder = Some(runner.ladder(baseline, "baseline", 0, Rating::Generation)?);
        runner.save(&state)?;
        runner.report(&state)?;
    }

    let budget = (config.run.time_budget_minutes > 0.0).then_some(config.run.time_budget_minutes * 60.0);
    let mut finished_now = 0;
    let mut stopped_by_budget = false;
    for generation in 0..config.run.generations {
        let index = generation as usize;
        if state.generations.get(index).is_some_and(|g| runner.is_complete(g)) {
            continue;
        }
        if options.max_generations_this_run.is_some_and(|max| finished_now >= max) {
            break;
        }
        if budget.is_some_and(|b| started.elapsed().as_secs_f64() >= b) {
            stopped_by_budget = true;
            break;
        }
        runner.generation(&mut state, generation)?;
        finished_now += 1;
        if options.progress {
            eprintln!("{}", generation_line(&state.generations[index]));
        }
    }
    let all_done = (0..config.run.generations as usize)
        .all(|i| state.generations.get(i).is_some_and(|g| runner.is_complete(g)));
    let run_over = all_done || stopped_by_budget;
    if run_over
        && config.final_rating.enabled
        && let Some((generation, model_id)) = runner.accepted_before(&state, config.run.generations)
    {
        runner.final_rating(&mut state, generation, &model_id)?;
    }
    runner.report(&state)?;
    if let Some(remote) = remote
        && run_over
    {
        remote.publish_finished(&state)?;
    }
    Ok(LoopSummary {
        accepted: runner.accepted_before(&state, config.run.generations).map(|(g, _)| paths.accepted(g)),
        state,
        generations_this_run: finished_now,
        stopped_by_budget,
        report: paths.report(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Saves the configuration with a new run; refuses to continue a run made with another one.
/// The generation count and the time budget may change: they say how far this invocation
/// goes, not how a generation is made, so `--generations N` extends a finished run (and the
/// saved configuration then records the new count). So may `[final_rating]`, which only
/// judges the models: adding it to a finished run and running again rates its last model.
fn check_or_save_config(config: &LoopConfig, paths: &RunPaths) -> Result<(), LoopError> {
    let path = paths.config();
    let save = || xq_files::write_atomic(&path, config.to_toml().as_bytes()).map_err(io_error(&path));
    match std::fs::read_to_string(&path) {
        Ok(saved_text) => {
            let saved: LoopConfig = toml::from_str(&saved_text)
                .map_err(|e| LoopError::Config(format!("{}: {e}", path.display())))?;
            if compare_configs(&saved, config, path.clone())? { save() } else { Ok(()) }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => save(),
        Err(e) => Err(LoopError::Io { path, source: e }),
    }
}

/// Whether `config` may continue the run saved with `saved` (at `saved_path`), and needs
/// saving: `Ok(false)` when equal, `Ok(true)` when only how far the run goes changed.
///
/// # Errors
/// [`LoopError::ConfigChanged`] naming the sections that differ otherwise.
pub(crate) fn compare_configs(
    saved: &LoopConfig,
    config: &LoopConfig,
    saved_path: PathBuf,
) -> Result<bool, LoopError> {
    if saved == config {
        return Ok(false);
    }
    let how_far = |c: &LoopConfig| {
        let mut c = c.clone();
        c.run.generations = 0;
        c.run.time_budget_minutes = 0.0;
        // The final rating judges the run's models; it does not make them.
        c.final_rating = LadderSection::final_rating_default();
        c
    };
    if how_far(saved) == how_far(config) {
        return Ok(true);
    }
    let as_json = |c: &LoopConfig| serde_json::to_value(how_far(c)).unwrap_or_default();
    let (a, b) = (as_json(saved), as_json(config));
    let sections: Vec<String> = a
        .as_object()
        .map(|o| o.keys().filter(|k| a.get(k.as_str()) != b.get(k.as_str())).cloned().collect())
        .unwrap_or_default();
    Err(LoopError::ConfigChanged {
        run: config.run.name.clone(),
        sections: if sections.is_empty() { "values".into() } else { sections.join(", ") },
        saved: saved_path,
    })
}

/// The line printed after each generation.
fn generation_line(g: &GenerationRecord) -> String {
    let mut line = format!("generation {}: ", g.generation);
    if let Some(s) = &g.selfplay {
        line += &format!("{} games, {} positions ({:.0} games/h)", s.games, s.positions, s.games_per_hour);
    }
    if let Some(t) = &g.train {
        line += &format!("; loss policy {:.3} value {:.3}", t.policy_loss, t.value_loss);
    }
    if let Some(gate) = &g.gate {
        line += &format!("; gate +{}={}-{} vs {}", gate.wins, gate.draws, gate.losses, gate.opponent);
        if let Some([elo, lo, hi]) = gate.elo {
            line += &format!(" ({elo:+.0} [{lo:+.0}, {hi:+.0}])");
        }
    }
    match g.promoted {
        Some(true) => line += ": promoted",
        Some(false) => line += ": rejected",
        None => {}
    }
    if let Some(l) = &g.ladder
        && let Some([elo, lo, hi]) = l.elo
    {
        line += &format!("; ladder {elo:+.0} [{lo:+.0}, {hi:+.0}]");
    }
    line + &format!(" in {:.0} s", g.seconds)
}

/// Who plays a self-play stage.
enum Player<'a> {
    /// MCTS over this evaluator.
    Search(&'a mut dyn xq_mcts::Evaluator),
    /// The alpha-beta teacher.
    Teacher(&'a xq_selfplay::TeacherConfig),
}

struct Runner<'a> {
    config: &'a LoopConfig,
    paths: &'a RunPaths,
    progress: bool,
    /// The distributed run's storage, when workers play the self-play.
    remote: Option<&'a RemoteRun>,
}

impl Runner<'_> {
    fn is_complete(&self, g: &GenerationRecord) -> bool {
        match g.promoted {
            Some(true) => !self.config.ladder.enabled || g.ladder.is_some(),
            Some(false) => true,
            None => false,
        }
    }

    /// The newest promoted generation before `generation`, with its model id.
    fn accepted_before(&self, state: &LoopState, generation: u32) -> Option<(u32, String)> {
        state
            .generations
            .iter()
            .filter(|g| g.generation < generation && g.promoted == Some(true))
            .filter_map(|g| g.train.as_ref().map(|t| (g.generation, t.model_id.clone())))
            .next_back()
    }

    fn builtin_name(&self) -> &'static str {
        self.config.selfplay.evaluator.name()
    }

    /// Who plays self-play until a network is accepted: the teacher, or the built-in evaluator.
    fn bootstrap_player(&self) -> String {
        match &self.config.bootstrap.teacher {
            Some(teacher) => teacher.model_id(),
            None => self.builtin_name().to_string(),
        }
    }

    /// MCTS over a built-in evaluator, with the run's search, as an event player.
    fn builtin_spec(&self, evaluator: BuiltinEvaluator, name: &str) -> PlayerSpec {
        PlayerSpec::mcts(format!("{name}-{}", evaluator.name()), evaluator.into(), self.config.search.clone())
    }

    /// The newest candidate trained before `generation`, promoted or not: training goes on
    /// from its weights, so the loss curve continues across generations whatever the gates
    /// decide (the gate only decides which model plays).
    fn trained_before(&self, state: &LoopState, generation: u32) -> Option<PathBuf> {
        state
            .generations
            .iter()
            .filter(|g| g.generation < generation && g.train.is_some())
            .filter_map(|g| match g.promoted {
                Some(true) => Some(self.paths.accepted(g.generation)),
                Some(false) => Some(self.paths.rejected(g.generation)),
                None => None,
            })
            .next_back()
    }

    /// MCTS over a checkpoint, with the run's search, as an event player.
    fn checkpoint_spec(&self, name: String, path: PathBuf) -> PlayerSpec {
        let evaluator = EvaluatorSpec::checkpoint(path)
            .on_device(self.config.run.device)
            .with_precision(self.config.run.precision);
        PlayerSpec::mcts(name, evaluator, self.config.search.clone())
    }

    fn save(&self, state: &LoopState) -> Result<(), LoopError> {
        state.save(&self.paths.state())?;
        match self.remote {
            Some(remote) => remote.publish_state(state),
            None => Ok(()),
        }
    }

    fn report(&self, state: &LoopState) -> Result<(), LoopError> {
        crate::write_report(self.config, self.paths, state)?;
        match self.remote {
            Some(remote) => remote.publish_report(self.paths),
            None => Ok(()),
        }
    }

    fn generation(&self, state: &mut LoopState, generation: u32) -> Result<(), LoopError> {
        let started = Instant::now();
        let index = generation as usize;
        let accepted = self.accepted_before(state, generation);
        if state.generations.len() <= index {
            let player = accepted.as_ref().map_or_else(|| self.bootstrap_player(), |(_, id)| id.clone());
            state.generations.push(GenerationRecord { generation, player, ..GenerationRecord::default() });
        }
        let player = state.generations[index].player.clone();
        let accepted_dir = accepted.as_ref().map(|(g, _)| self.paths.accepted(*g));

        if state.generations[index].selfplay.is_none() {
            let record = match self.remote {
                Some(remote) => self.collect(remote, state, generation, accepted.is_some())?,
                None => self.selfplay(generation, &player, accepted_dir.as_deref())?,
            };
            state.generations[index].selfplay = Some(record);
            self.save(state)?;
        }
        if accepted.is_some() && state.generations[index].teacher.is_none() {
            state.generations[index].teacher = self.teacher_games(generation)?;
            self.save(state)?;
        }
        if state.generations[index].train.is_none() {
            // Within a generation the teacher's games count as older than the network's, so the
            // window drops them first.
            let data_dirs: Vec<PathBuf> = state.generations[..=index]
                .iter()
                .flat_map(|g| [&g.teacher, &g.selfplay])
                .filter_map(|record| record.as_ref().map(|s| self.config.run.data_root.join(&s.dir)))
                .collect();
            let previous = self.trained_before(state, generation);
            let record = self.train(generation, data_dirs, previous.as_deref())?;
            state.generations[index].train = Some(record);
            self.save(state)?;
        }
        if state.generations[index].gate.is_none() {
            let record = self.gate(generation, accepted.as_ref())?;
            state.generations[index].gate = Some(record);
            self.save(state)?;
        }
        if state.generations[index].promoted.is_none() {
            let promote = state.generations[index].gate.as_ref().is_some_and(|g| g.verdict == "promote");
            let promoted = self.promote(generation, promote)?;
            if let Some(remote) = self.remote {
                let dir =
                    if promoted { self.paths.accepted(generation) } else { self.paths.rejected(generation) };
                let id =
                    state.generations[index].train.as_ref().map(|t| t.model_id.clone()).unwrap_or_default();
                remote.publish_model(generation, promoted, &id, &dir)?;
            }
            state.generations[index].promoted = Some(promoted);
            self.save(state)?;
        }
        if state.generations[index].promoted == Some(true)
            && self.config.ladder.enabled
            && state.generations[index].ladder.is_none()
        {
            let id = state.generations[index].train.as_ref().map(|t| t.model_id.clone()).unwrap_or_default();
            let label = generation_name(generation);
            let spec = self.checkpoint_spec(format!("{label}-{id}"), self.paths.accepted(generation));
            state.generations[index].ladder =
                Some(self.ladder(spec, &label, generation, Rating::Generation)?);
            self.save(state)?;
        }
        state.generations[index].seconds += started.elapsed().as_secs_f64();
        self.save(state)?;
        self.report(state)
    }

    /// A distributed generation's self-play: the worker batches committed since the previous
    /// generation claimed its own, once they hold the games a generation plays.
    fn collect(
        &self,
        remote: &RemoteRun,
        state: &LoopState,
        generation: u32,
        network_plays: bool,
    ) -> Result<SelfplayRecord, LoopError> {
        let claimed_before: HashSet<String> = state.generations[..generation as usize]
            .iter()
            .filter_map(|g| g.selfplay.as_ref())
            .flat_map(|s| s.shards.iter().cloned())
            .collect();
        let labels: Vec<String> = std::iter::once(crate::remote::BOOTSTRAP_LABEL.to_string())
            .chain(
                state.generations[..generation as usize]
                    .iter()
                    .filter(|g| g.promoted == Some(true))
                    .map(|g| generation_name(g.generation)),
            )
            .collect();
        let dir = self.paths.selfplay(generation, "workers");
        let mut record = remote.collect(
            &labels,
            &claimed_before,
            self.config.selfplay_games(network_plays),
            &dir,
            self.progress,
        )?;
        record.dir =
            dir.strip_prefix(&self.config.run.data_root).unwrap_or(&dir).to_string_lossy().into_owned();
        Ok(record)
    }

    /// Plays the fixed validation set (or finishes it, after a kill), with the bootstrap's
    /// player: the teacher when there is one, else MCTS over the built-in evaluator.
    fn validation_set(&self) -> Result<SelfplayRecord, LoopError> {
        let mut config = self.config.selfplay_config();
        config.selfplay.seed = derive_seed(self.config.run.seed ^ VALIDATION_SALT, 0);
        config.selfplay.games = self.config.validation.games;
        let dir = self.paths.validation();
        if let Some(teacher) = &self.config.bootstrap.teacher {
            return self.play(&config, Player::Teacher(teacher), &teacher.model_id(), 0, dir);
        }
        let mut evaluator = self.config.selfplay.evaluator.build();
        self.play(&config, Player::Search(evaluator.as_mut()), self.builtin_name(), 0, dir)
    }

    /// Self-play of `config` into `dir` (continued if a kill left it unfinished), counted
    /// from its shards.
    fn play(
        &self,
        config: &xq_selfplay::SelfplayConfig,
        player: Player<'_>,
        model_id: &str,
        generation: u32,
        dir: PathBuf,
    ) -> Result<SelfplayRecord, LoopError> {
        let openings = xq_play::Book::openings_at(&config.selfplay.opening_book)
            .map_err(|e| LoopError::Config(format!("selfplay.opening_book: {e}")))?;
        let run = SelfplayRun {
            out_dir: dir.clone(),
            model_id: model_id.to_string(),
            openings,
            progress: self.progress,
            stop_after_shards: None,
        };
        let summary = match player {
            Player::Search(evaluator) => run_selfplay(config, evaluator, &run),
            Player::Teacher(teacher) => run_teacher_selfplay(config, teacher, &run),
        }
        .map_err(|source| LoopError::Selfplay { generation, source })?;
        let mut record = count_selfplay(&dir)?;
        record.dir =
            dir.strip_prefix(&self.config.run.data_root).unwrap_or(&dir).to_string_lossy().into_owned();
        record.seconds = summary.seconds;
        record.games_per_hour = summary.games_per_hour();
        record.evaluations_per_second = summary.evaluations_per_second();
        record.outside_evaluator_share = summary.outside_evaluator_share();
        Ok(record)
    }

    fn selfplay(
        &self,
        generation: u32,
        player: &str,
        accepted: Option<&Path>,
    ) -> Result<SelfplayRecord, LoopError> {
        let mut config = self.config.selfplay_config();
        config.selfplay.seed = derive_seed(self.config.run.seed ^ SELFPLAY_SALT, u64::from(generation));
        config.selfplay.games = self.config.selfplay_games(accepted.is_some());
        let dir = self.paths.selfplay(generation, player);
        if let (None, Some(teacher)) = (accepted, &self.config.bootstrap.teacher) {
            return self.play(&config, Player::Teacher(teacher), player, generation, dir);
        }
        let spec = match accepted {
            Some(path) => EvaluatorSpec::checkpoint(path)
                .on_device(self.config.run.device)
                .with_precision(self.config.run.precision),
            None => EvaluatorSpec::Builtin(self.config.selfplay.evaluator),
        };
        let mut evaluator = spec
            .build()
            .map_err(|e| LoopError::Model { path: PathBuf::from(spec.label()), message: e.to_string() })?
            .evaluator;
        self.play(&config, Player::Search(evaluator.as_mut()), player, generation, dir)
    }

    /// The teacher's games of a generation after the first promotion
    /// (`bootstrap.games_after_promotion`, phased out by `bootstrap.teacher_phase_out`; `None`
    /// when there are none to play).
    fn teacher_games(&self, generation: u32) -> Result<Option<SelfplayRecord>, LoopError> {
        let games = self.config.bootstrap.teacher_games_in(generation);
        let Some(teacher) = self.config.bootstrap.teacher.as_ref().filter(|_| games > 0) else {
            return Ok(None);
        };
        let mut config = self.config.selfplay_config();
        config.selfplay.seed = derive_seed(self.config.run.seed ^ TEACHER_SALT, u64::from(generation));
        config.selfplay.games = games;
        let dir = self.paths.selfplay(generation, &teacher.model_id());
        self.play(&config, Player::Teacher(teacher), &teacher.model_id(), generation, dir).map(Some)
    }

    fn train(
        &self,
        generation: u32,
        data_dirs: Vec<PathBuf>,
        previous: Option<&Path>,
    ) -> Result<TrainRecord, LoopError> {
        let out_dir = self.paths.candidate(generation);
        let mut config = self.config.train.clone();
        config.train.seed = derive_seed(self.config.run.seed ^ TRAIN_SALT, u64::from(generation));
        let init_from = previous
            .map(|dir| {
                xq_nn::resolve_checkpoint(dir)
                    .map_err(|e| LoopError::Model { path: dir.to_path_buf(), message: e.to_string() })
            })
            .transpose()?;
        let resume = out_dir.exists();
        let validation_dirs =
            if self.config.validation.games > 0 { vec![self.paths.validation()] } else { Vec::new() };
        let run = TrainRun {
            data_dirs,
            out_dir,
            init_from,
            resume,
            progress: self.progress,
            stop_after_steps: None,
            rules: Some(self.config.rules),
            validation_dirs,
        };
        let summary = train(&config, &run).map_err(|source| LoopError::Train { generation, source })?;
        Ok(TrainRecord {
            model_id: summary.model_id,
            steps: summary.steps,
            window_samples: summary.samples as u64,
            policy_loss: summary.policy_loss,
            value_loss: summary.value_loss,
            policy_top1: summary.policy_top1,
            value_accuracy: summary.value_accuracy,
            samples_per_sec: summary.samples_per_sec,
            validation: summary.validation,
        })
    }

    /// An event of the run: its rules, a length cap and every player's budget per move.
    fn event_config(
        &self,
        name: String,
        seed: u64,
        format: Format,
        max_plies: u32,
        limits: Limits,
    ) -> RunConfig {
        RunConfig {
            name,
            seed,
            concurrency: 1,
            openings: None,
            book: None,
            format,
            rules: self.config.rules,
            adjudication: Adjudication { max_plies, ..Adjudication::default() },
            limits,
            output: Default::default(),
            players: Vec::new(),
        }
    }

    fn event(
        &self,
        stage: &'static str,
        generation: u32,
        config: &RunConfig,
        out: &Path,
    ) -> Result<EventReport, LoopError> {
        let bar = self.games_bar(config.max_games(), stage);
        let mut on_progress = |p: &xq_eval::runner::Progress| {
            bar.set_length(p.max_games as u64);
            bar.set_position(p.finished as u64);
            bar.set_message(format!(
                "{}: +{}={}-{}",
                p.first_player, p.first_wdl.wins, p.first_wdl.draws, p.first_wdl.losses
            ));
        };
        let summary = run_event(config, out, &RunOptions::default(), &mut on_progress)
            .map_err(|source| LoopError::Eval { stage, generation, source })?;
        bar.finish_and_clear();
        Ok(summary.report)
    }

    /// A bar of games played, labelled `stage` (hidden when the run shows no progress).
    fn games_bar(&self, games: usize, stage: &'static str) -> ProgressBar {
        let bar = if self.progress { ProgressBar::new(games as u64) } else { ProgressBar::hidden() };
        bar.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} games {msg} ({elapsed})")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(stage);
        bar
    }

    /// Places `player` on the scale of `section` (its steps under `out`, resumed when a
    /// killed run gets here again), `concurrency` games at once.
    fn place_on_scale(
        &self,
        stage: &'static str,
        generation: u32,
        section: &ScaleRating,
        player: PlayerSpec,
        concurrency: usize,
        out: &Path,
    ) -> Result<xq_eval::scale::Rating, LoopError> {
        let fail = |source| LoopError::Scale { stage, generation, source };
        let scale = ScaleFile::load(&section.file).map_err(fail)?;
        let bar = self.games_bar(section.max_games, "scale");
        let mut on_progress = |p: &ScaleProgress| {
            bar.set_position((p.before + p.finished) as u64);
            bar.set_message(p.event.clone());
        };
        let options = PlayOptions { concurrency: Some(concurrency), max_new_games: None };
        let rating =
            rate(&scale, &section.rate_config(player), out, &options, &mut on_progress).map_err(fail)?;
        bar.finish_and_clear();
        Ok(rating)
    }

    fn gate(&self, generation: u32, accepted: Option<&(u32, String)>) -> Result<GateRecord, LoopError> {
        let gate = &self.config.gate;
        let candidate = self.checkpoint_spec(
            format!("candidate-{}", generation_name(generation)),
            self.paths.candidate(generation),
        );
        let (opponent, opponent_name) = match accepted {
            Some((g, id)) => (
                self.checkpoint_spec(format!("accepted-{}", generation_name(*g)), self.paths.accepted(*g)),
                id.clone(),
            ),
            None => {
                (self.builtin_spec(gate.first_opponent, "baseline"), gate.first_opponent.name().to_string())
            }
        };
        let config = RunConfig {
            concurrency: gate.concurrency,
            openings: Some(gate.openings),
            players: vec![candidate, opponent],
            ..self.event_config(
                format!("{} gate {}", self.config.run.name, generation_name(generation)),
                derive_seed(self.config.run.seed ^ GATE_SALT, u64::from(generation)),
                Format::Gate { pairs: gate.pairs, threshold: gate.threshold },
                gate.max_plies,
                gate.limits,
            )
        };
        let report = self.event("gate", generation, &config, &self.paths.gate(generation))?;
        let verdict = match report.gate {
            Some(GateVerdict::Promote) => "promote",
            Some(GateVerdict::Reject) => "reject",
            Some(GateVerdict::Pending) | None => {
                return Err(LoopError::Report(format!(
                    "the gate of {} did not finish",
                    generation_name(generation)
                )));
            }
        };
        let total = report.players.first().map(|p| p.games.total).unwrap_or_default();
        let elo = report.pairs.first().and_then(|p| {
            let estimate = p.pentanomial_estimate.as_ref().or(p.trinomial_estimate.as_ref())?;
            // The pair's estimate is for its first-named player; flip it when that is the opponent.
            let sign = if p.a == config.players[0].name() { 1.0 } else { -1.0 };
            Some(elo_triple(estimate, sign))
        });
        Ok(GateRecord {
            opponent: opponent_name,
            wins: total.wins,
            draws: total.draws,
            losses: total.losses,
            elo,
            verdict: verdict.into(),
        })
    }

    /// Moves the candidate into `accepted/` or `rejected/` by one rename (already moved when a
    /// killed run gets here again).
    fn promote(&self, generation: u32, promote: bool) -> Result<bool, LoopError> {
        let (accepted, rejected) = (self.paths.accepted(generation), self.paths.rejected(generation));
        if accepted.exists() {
            return Ok(true);
        }
        if rejected.exists() {
            return Ok(false);
        }
        let target = if promote { accepted } else { rejected };
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        }
        let candidate = self.paths.candidate(generation);
        std::fs::rename(&candidate, &target).map_err(io_error(&candidate))?;
        Ok(promote)
    }

    /// Rates the last accepted model (`generation`) as `[final_rating]` says, unless it is
    /// rated already with this section. A rating begun for another model or section is
    /// started over; one cut short by a kill goes on where it stopped.
    fn final_rating(&self, state: &mut LoopState, generation: u32, model_id: &str) -> Result<(), LoopError> {
        let section = &self.config.final_rating;
        let label = format!("final-{}", generation_name(generation));
        let begun =
            state.final_rating.as_ref().filter(|r| r.generation == generation && r.section == *section);
        match begun {
            Some(record) if record.rating.is_some() => return Ok(()),
            Some(_) => {}
            None => {
                // Games journaled with another section would refuse to resume; they are not
                // this rating's games anyway.
                for dir in [self.paths.ladder(&label), self.paths.ladder(&scale_label(&label))] {
                    if dir.exists() {
                        std::fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
                    }
                }
                state.final_rating =
                    Some(FinalRatingRecord { generation, section: section.clone(), rating: None });
                self.save(state)?;
            }
        }
        let spec = self.checkpoint_spec(
            format!("{}-{model_id}", generation_name(generation)),
            self.paths.accepted(generation),
        );
        let rating = self.ladder(spec, &label, generation, Rating::Final)?;
        state.final_rating =
            Some(FinalRatingRecord { generation, section: section.clone(), rating: Some(rating) });
        self.save(state)
    }

    /// Rates `player` against the fixed opponents of `[ladder]` (or `[final_rating]`), every
    /// one at the section's budget per move; tree-search opponents search as the run does
    /// unless their entry says otherwise.
    fn ladder(
        &self,
        player: PlayerSpec,
        label: &str,
        generation: u32,
        rating: Rating,
    ) -> Result<LadderRecord, LoopError> {
        let (ladder, seed_index): (&LadderSection, u64) = match rating {
            Rating::Generation => (&self.config.ladder, 0),
            Rating::Final => (&self.config.final_rating, 1),
        };
        let player = match &ladder.model_search {
            Some(model) => model.apply(player),
            None => player,
        };
        let mut players = vec![player];
        players.extend(ladder.opponents.iter().cloned().map(|mut opponent| {
            if let PlayerSpec::Mcts { search: search @ None, .. } = &mut opponent {
                *search = Some(self.config.search.clone());
            }
            opponent
        }));
        let config = RunConfig {
            concurrency: ladder.concurrency,
            openings: Some(ladder.openings),
            players,
            ..self.event_config(
                format!("{} ladder {label}", self.config.run.name),
                derive_seed(self.config.run.seed ^ LADDER_SALT, seed_index),
                ladder.format(),
                ladder.max_plies,
                ladder.limits,
            )
        };
        let stage = match rating {
            Rating::Generation => "ladder",
            Rating::Final => "final rating",
        };
        let report = self.event(stage, generation, &config, &self.paths.ladder(label))?;
        let model = config.players[0].name().to_string();
        let first = report.players.iter().find(|p| p.name == model);
        // Each encounter from the model's side: opponent, W/D/L and pentanomial.
        let encounters: Vec<(String, Wdl, Pentanomial)> = report
            .pairs
            .iter()
            .filter_map(|p| {
                let wdl = p.games.total;
                if p.a == model {
                    Some((p.b.clone(), wdl, p.pentanomial))
                } else if p.b == model {
                    let flipped = Wdl { wins: wdl.losses, draws: wdl.draws, losses: wdl.wins };
                    Some((p.a.clone(), flipped, p.pentanomial.flipped()))
                } else {
                    None
                }
            })
            .collect();
        let beats = match &ladder.threshold {
            Some(threshold) => encounters
                .iter()
                .map(|(_, wdl, pentanomial)| threshold.is_met(wdl.score().ok(), pentanomial))
                .collect(),
            None => Vec::new(),
        };
        let scale = match &ladder.scale {
            Some(section) => {
                let player = config.players[0].clone().with_default_limits(ladder.limits);
                let out = self.paths.ladder(&scale_label(label));
                Some(self.place_on_scale(stage, generation, section, player, ladder.concurrency, &out)?)
            }
            None => None,
        };
        Ok(LadderRecord {
            scale,
            model,
            elo: first.and_then(|p| p.performance.as_ref()).map(|e| elo_triple(e, 1.0)),
            score: first.and_then(|p| p.games.total.score().ok()).unwrap_or(0.0),
            opponents: encounters
                .into_iter()
                .map(|(name, wdl, _)| (name, [wdl.wins, wdl.draws, wdl.losses]))
                .collect(),
            beats,
            speed: report.speed.clone(),
        })
    }
}

/// The directory of a ladder rating's games on the scale, beside the rating's own.
fn scale_label(label: &str) -> String {
    format!("{label}-scale")
}

fn elo_triple(estimate: &EloEstimate, sign: f64) -> [f64; 3] {
    let i = &estimate.elo;
    if sign > 0.0 { [i.value, i.lower, i.upper] } else { [-i.value, -i.upper, -i.lower] }
}

/// Games, results and terminations of a self-play directory, from its shards.
pub(crate) fn count_selfplay(dir: &Path) -> Result<SelfplayRecord, LoopError> {
    let data_error =
        |e: xq_data::DataError| LoopError::Data { path: dir.to_path_buf(), message: e.to_string() };
    let games = read_games_dir(dir).map_err(data_error)?;
    let mut record = SelfplayRecord::default();
    for game in &games.rows {
        tally(&mut record, game);
    }
    for shard in list_shards::<Sample>(dir).map_err(data_error)? {
        record.positions += shard_row_count::<Sample>(&shard.path).map_err(data_error)?;
    }
    Ok(record)
}

fn tally(record: &mut SelfplayRecord, game: &GameRow) {
    record.games += 1;
    match game.result {
        GameResult::RedWins => record.red_wins += 1,
        GameResult::BlackWins => record.black_wins += 1,
        GameResult::Draw => record.draws += 1,
    }
    *record.terminations.entry(game.termination.name().to_string()).or_default() += 1;
}
