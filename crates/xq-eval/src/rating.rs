//! Ratings on one scale from many games: maximum likelihood over every game among a set of
//! players (the model of Ordo and BayesElo), and placing one more player against anchors whose
//! ratings are held fixed.
//!
//! **The model.** Logistic Elo: a player rated `d` Elo above its opponent scores
//! `p(d) = 1 / (1 + 10^(−d/400))` per game on average. A draw counts as half a win, so each
//! game adds `s·ln p + (1 − s)·ln(1 − p)` to the log-likelihood, `s ∈ {0, ½, 1}` the score.
//! This is Ordo's model, chosen over BayesElo's `drawelo` model because it keeps the scale the
//! one the rest of xq reports: a 76% score is +200 here as it is in a gauntlet's Elo
//! ([`crate::stats::Wdl::estimate`]), whereas BayesElo's ratings stretch or shrink with the
//! draw rate. Colour is not modelled: the runner plays every opening twice with colours
//! swapped, so red's edge cancels within each game pair.
//!
//! **Intervals.** 95% (±1.96 standard errors) from the inverse of the log-likelihood's
//! Hessian at the maximum, over the free ratings only, so every interval is relative to the
//! pinned player (whose own interval is zero). The binomial curvature treats a draw as
//! carrying the variance of a coin toss; draws carry less, so with many draws the intervals
//! are conservative (wider than the spread of repeated calibrations).
//!
//! **Perfect scores.** A player who won (or lost) every game against an opponent has no
//! finite maximum-likelihood rating. As BayesElo does, every pair of players that met gets
//! `prior_draws` virtual draws (default [`DEFAULT_PRIOR_DRAWS`], one), which pulls each
//! head-to-head score strictly inside (0, 1); the figure shrinks lopsided results toward a
//! draw by one game's worth, negligible once a pair has played tens of games.
//!
//! ```
//! use xq_eval::rating::{FitOptions, PairwiseResults, fit_ratings};
//! use xq_eval::stats::Wdl;
//! let mut games = PairwiseResults::new();
//! games.add("random", "greedy", Wdl::new(1, 2, 37)).unwrap();
//! games.add("greedy", "alphabeta-d1", Wdl::new(10, 5, 25)).unwrap();
//! let fit = fit_ratings(&games, &FitOptions::pinned("random", 0.0)).unwrap();
//! let greedy = fit.get("greedy").unwrap();
//! assert!(greedy.elo > 300.0 && greedy.lower < greedy.elo && greedy.elo < greedy.upper);
//! assert_eq!(fit.get("random").unwrap().elo, 0.0);
//! ```

use crate::stats::Wdl;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use thiserror::Error;

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Virtual draws given to every pair of players that met, unless the options say otherwise.
pub const DEFAULT_PRIOR_DRAWS: f64 = 1.0;

/// `d p / d elo = ELO_SLOPE · p (1 − p)` for the logistic curve in Elo.
const ELO_SLOPE: f64 = std::f64::consts::LN_10 / 400.0;

/// Newton steps are capped at this many Elo per player, so a first step from a flat start
/// through a very lopsided result cannot overshoot into the region where `p` rounds to 0 or 1.
const MAX_STEP_ELO: f64 = 400.0;

/// Why ratings cannot be computed.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RatingError {
    /// There are no games at all.
    #[error("no games to rate")]
    NoGames,
    /// A game of a player against itself.
    #[error("a game of {0:?} against itself")]
    SelfGame(String),
    /// A name that is not among the players.
    #[error("unknown player {0:?}")]
    UnknownPlayer(String),
    /// Players with no chain of games to the pinned player: their ratings are not defined on
    /// its scale.
    #[error("no chain of games links {players:?} to {pin:?}, so they cannot be rated on its scale")]
    Disconnected {
        /// The pinned player.
        pin: String,
        /// The players it does not reach.
        players: Vec<String>,
    },
    /// A prior or option that is negative or not a number.
    #[error("invalid rating option: {0}")]
    InvalidOption(String),
    /// The iterations did not settle (only possible with `prior_draws = 0` and a perfect
    /// score, whose maximum lies at infinity).
    #[error("the ratings did not converge in {0} iterations (a perfect score without a prior?)")]
    NotConverged(usize),
}

/// Games among named players: for each pair that met, the W/D/L of the first-named.
///
/// ```
/// use xq_eval::rating::PairwiseResults;
/// use xq_eval::stats::Wdl;
/// let mut games = PairwiseResults::new();
/// games.add("a", "b", Wdl::new(3, 1, 0)).unwrap();
/// games.add("b", "a", Wdl::new(1, 0, 0)).unwrap();
/// assert_eq!(games.between("a", "b"), Some(Wdl::new(3, 1, 1)));
/// assert_eq!(games.between("b", "a"), Some(Wdl::new(1, 1, 3)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairwiseResults {
    names: Vec<String>,
    /// Keyed by `(i, j)` with `i < j`, counts from `i`'s view.
    pairs: BTreeMap<(usize, usize), Wdl>,
}

impl PairwiseResults {
    /// No players, no games.
    pub fn new() -> PairwiseResults {
        PairwiseResults::default()
    }

    /// The index of `name`, adding it (without games) when new. A player listed but never
    /// playing makes [`fit_ratings`] fail as disconnected.
    pub fn add_player(&mut self, name: &str) -> usize {
        match self.index(name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        }
    }

    /// Adds games of `a` against `b`, counted from `a`'s view.
    ///
    /// # Errors
    /// [`RatingError::SelfGame`] when `a` and `b` are the same player.
    pub fn add(&mut self, a: &str, b: &str, wdl_of_a: Wdl) -> Result<(), RatingError> {
        if a == b {
            return Err(RatingError::SelfGame(a.to_string()));
        }
        let (i, j) = (self.add_player(a), self.add_player(b));
        let (key, wdl) = if i < j { ((i, j), wdl_of_a) } else { ((j, i), wdl_of_a.flipped()) };
        self.pairs.entry(key).or_default().add(wdl);
        Ok(())
    }

    /// Adds every finished game of an event's journal (forfeits included: a player that breaks
    /// down loses, as it does in the event).
    ///
    /// # Errors
    /// [`RatingError::SelfGame`] for a game with the same name on both sides.
    pub fn add_journal(&mut self, entries: &[crate::runner::JournalEntry]) -> Result<(), RatingError> {
        for entry in entries {
            let red = match entry.record.result {
                xq_core::GameResult::RedWins => Wdl::new(1, 0, 0),
                xq_core::GameResult::BlackWins => Wdl::new(0, 0, 1),
                xq_core::GameResult::Draw => Wdl::new(0, 1, 0),
            };
            self.add(&entry.red, &entry.black, red)?;
        }
        Ok(())
    }

    /// Every player, in the order first seen.
    pub fn players(&self) -> &[String] {
        &self.names
    }

    /// The index of a player.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// `a`'s results against `b` (`None` when either is unknown; zero counts when they never met).
    pub fn between(&self, a: &str, b: &str) -> Option<Wdl> {
        let (i, j) = (self.index(a)?, self.index(b)?);
        Some(self.by_index(i, j))
    }

    fn by_index(&self, i: usize, j: usize) -> Wdl {
        if i < j {
            self.pairs.get(&(i, j)).copied().unwrap_or_default()
        } else {
            self.pairs.get(&(j, i)).map(Wdl::flipped).unwrap_or_default()
        }
    }

    /// Every pair that met, as `(first, second, W/D/L of first)`, first before second in
    /// player order.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str, Wdl)> + '_ {
        self.pairs
            .iter()
            .filter(|(_, w)| w.games() > 0)
            .map(|(&(i, j), &w)| (self.names[i].as_str(), self.names[j].as_str(), w))
    }

    /// All games.
    pub fn games(&self) -> u64 {
        self.pairs.values().map(Wdl::games).sum()
    }

    /// One player's results against everyone (zero counts for an unknown name).
    pub fn total_of(&self, name: &str) -> Wdl {
        let Some(i) = self.index(name) else { return Wdl::default() };
        let mut total = Wdl::default();
        for j in 0..self.names.len() {
            if j != i {
                total.add(self.by_index(i, j));
            }
        }
        total
    }
}

/// How [`fit_ratings`] pins and regularizes the scale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitOptions {
    /// The player whose rating is fixed.
    pub pin: String,
    /// Its rating.
    pub pin_elo: f64,
    /// Virtual draws added to every pair that met (see the module documentation).
    #[serde(default = "default_prior_draws")]
    pub prior_draws: f64,
}

fn default_prior_draws() -> f64 {
    DEFAULT_PRIOR_DRAWS
}

impl FitOptions {
    /// `pin` at `pin_elo`, with the default prior.
    pub fn pinned(pin: &str, pin_elo: f64) -> FitOptions {
        FitOptions { pin: pin.to_string(), pin_elo, prior_draws: DEFAULT_PRIOR_DRAWS }
    }
}

/// The ratings of every player, fitted together.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingFit {
    /// Every player, in the order of [`PairwiseResults::players`].
    pub ratings: Vec<RatingView>,
    /// The pinned player.
    pub pin: String,
    /// Its rating.
    pub pin_elo: f64,
    /// Covariance of the ratings in Elo², in player order (the pinned player's row and column
    /// are zero).
    pub covariance: Vec<Vec<f64>>,
    /// Newton iterations taken.
    pub iterations: usize,
}

/// A fitted rating, with its interval ends precomputed for display.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingView {
    /// The player.
    pub name: String,
    /// Its Elo on the scale.
    pub elo: f64,
    /// Lower end of its 95% interval.
    pub lower: f64,
    /// Upper end of its 95% interval.
    pub upper: f64,
    /// Half the interval's width.
    pub half_width: f64,
    /// Its games (virtual ones not counted), from its view.
    pub wdl: Wdl,
}

impl RatingFit {
    /// A player's rating.
    pub fn get(&self, name: &str) -> Option<&RatingView> {
        self.ratings.iter().find(|r| r.name == name)
    }

    /// `a − b` with the half-width of its 95% interval, which uses the two ratings' covariance
    /// (two anchors next to each other on a chain are known relative to each other far better
    /// than either is relative to a distant pin).
    pub fn difference(&self, a: &str, b: &str) -> Option<(f64, f64)> {
        let i = self.ratings.iter().position(|r| r.name == a)?;
        let j = self.ratings.iter().position(|r| r.name == b)?;
        let c = &self.covariance;
        let variance = (c[i][i] + c[j][j] - 2.0 * c[i][j]).max(0.0);
        Some((self.ratings[i].elo - self.ratings[j].elo, Z95 * variance.sqrt()))
    }
}

/// Expected score of a player rated `diff` Elo above its opponent.
///
/// ```
/// use xq_eval::rating::expected_score;
/// assert!((expected_score(0.0) - 0.5).abs() < 1e-12);
/// assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
/// ```
pub fn expected_score(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

fn check_prior(prior_draws: f64) -> Result<(), RatingError> {
    if prior_draws.is_finite() && prior_draws >= 0.0 {
        Ok(())
    } else {
        Err(RatingError::InvalidOption(format!("prior_draws = {prior_draws}: expected a number ≥ 0")))
    }
}

/// One pair's games as the likelihood sees them: `points` of the first out of `games`,
/// virtual draws included.
#[derive(Clone, Copy, Debug)]
struct PairTerm {
    i: usize,
    j: usize,
    points: f64,
    games: f64,
}

fn log_likelihood(terms: &[PairTerm], elo: &[f64]) -> f64 {
    terms
        .iter()
        .map(|t| {
            let p = expected_score(elo[t.i] - elo[t.j]).clamp(1e-300, 1.0 - 1e-16);
            t.points * p.ln() + (t.games - t.points) * (1.0 - p).ln()
        })
        .sum()
}

/// Gradient and negative Hessian (the observed information) of the log-likelihood in Elo.
fn gradient_and_information(terms: &[PairTerm], elo: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let n = elo.len();
    let mut gradient = vec![0.0; n];
    let mut information = vec![vec![0.0; n]; n];
    for t in terms {
        let p = expected_score(elo[t.i] - elo[t.j]);
        let residual = ELO_SLOPE * (t.points - t.games * p);
        gradient[t.i] += residual;
        gradient[t.j] -= residual;
        let curvature = ELO_SLOPE * ELO_SLOPE * t.games * p * (1.0 - p);
        information[t.i][t.i] += curvature;
        information[t.j][t.j] += curvature;
        information[t.i][t.j] -= curvature;
        information[t.j][t.i] -= curvature;
    }
    (gradient, information)
}

/// The inverse of a symmetric positive definite matrix by Gauss–Jordan elimination with
/// partial pivoting; `None` when it is singular.
fn invert(matrix: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = matrix.len();
    let mut a: Vec<Vec<f64>> = matrix.to_vec();
    let mut inverse: Vec<Vec<f64>> =
        (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 || !a[pivot][col].is_finite() {
            return None;
        }
        a.swap(col, pivot);
        inverse.swap(col, pivot);
        let scale = a[col][col];
        for k in 0..n {
            a[col][k] /= scale;
            inverse[col][k] /= scale;
        }
        for row in 0..n {
            if row != col {
                let factor = a[row][col];
                if factor != 0.0 {
                    for k in 0..n {
                        a[row][k] -= factor * a[col][k];
                        inverse[row][k] -= factor * inverse[col][k];
                    }
                }
            }
        }
    }
    Some(inverse)
}

/// The players with no chain of games to `start`.
fn unreachable_from(results: &PairwiseResults, start: usize) -> Vec<String> {
    let n = results.names.len();
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(i) = queue.pop_front() {
        for (&(a, b), w) in &results.pairs {
            if w.games() == 0 {
                continue;
            }
            let other = if a == i {
                b
            } else if b == i {
                a
            } else {
                continue;
            };
            if !seen[other] {
                seen[other] = true;
                queue.push_back(other);
            }
        }
    }
    (0..n).filter(|&i| !seen[i]).map(|i| results.names[i].clone()).collect()
}

/// Maximum-likelihood ratings of every player, `options.pin` held at `options.pin_elo`, with
/// 95% intervals relative to it (see the module documentation for the model and the prior).
/// Solved by Newton's method on the concave log-likelihood, each step capped and halved until
/// the likelihood rises.
///
/// # Errors
/// [`RatingError::NoGames`], [`RatingError::UnknownPlayer`] for a pin that never played,
/// [`RatingError::Disconnected`] for players no chain of games links to the pin,
/// [`RatingError::InvalidOption`] for a negative prior, [`RatingError::NotConverged`].
pub fn fit_ratings(results: &PairwiseResults, options: &FitOptions) -> Result<RatingFit, RatingError> {
    check_prior(options.prior_draws)?;
    if !options.pin_elo.is_finite() {
        return Err(RatingError::InvalidOption(format!("pin_elo = {}", options.pin_elo)));
    }
    if results.games() == 0 {
        return Err(RatingError::NoGames);
    }
    let pin = results.index(&options.pin).ok_or_else(|| RatingError::UnknownPlayer(options.pin.clone()))?;
    let unreachable = unreachable_from(results, pin);
    if !unreachable.is_empty() {
        return Err(RatingError::Disconnected { pin: options.pin.clone(), players: unreachable });
    }
    let terms: Vec<PairTerm> = results
        .pairs
        .iter()
        .filter(|(_, w)| w.games() > 0)
        .map(|(&(i, j), w)| PairTerm {
            i,
            j,
            points: w.points() + 0.5 * options.prior_draws,
            games: w.games() as f64 + options.prior_draws,
        })
        .collect();
    let n = results.names.len();
    // The free ratings: every player but the pin, in player order.
    let free: Vec<usize> = (0..n).filter(|&i| i != pin).collect();
    let mut elo = vec![options.pin_elo; n];
    let max_iterations = 200;
    let mut iterations = 0;
    let mut converged = free.is_empty();
    while !converged {
        if iterations == max_iterations {
            return Err(RatingError::NotConverged(max_iterations));
        }
        iterations += 1;
        let (gradient, information) = gradient_and_information(&terms, &elo);
        let reduced: Vec<Vec<f64>> =
            free.iter().map(|&a| free.iter().map(|&b| information[a][b]).collect()).collect();
        let inverse = invert(&reduced).ok_or(RatingError::NotConverged(iterations))?;
        let mut step: Vec<f64> = (0..free.len())
            .map(|a| (0..free.len()).map(|b| inverse[a][b] * gradient[free[b]]).sum::<f64>())
            .collect();
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        if largest > MAX_STEP_ELO {
            step.iter_mut().for_each(|s| *s *= MAX_STEP_ELO / largest);
        }
        let before = log_likelihood(&terms, &elo);
        let mut fraction = 1.0;
        let mut trial = elo.clone();
        loop {
            for (a, &i) in free.iter().enumerate() {
                trial[i] = elo[i] + fraction * step[a];
            }
            if log_likelihood(&terms, &trial) >= before - 1e-12 || fraction < 1e-6 {
                break;
            }
            fraction *= 0.5;
        }
        let moved = step.iter().fold(0.0f64, |m, s| m.max((fraction * s).abs()));
        elo = trial.clone();
        converged = moved < 1e-7;
        if elo.iter().any(|e| !e.is_finite() || e.abs() > 1e6) {
            return Err(RatingError::NotConverged(iterations));
        }
    }
    let (_, information) = gradient_and_information(&terms, &elo);
    let mut covariance = vec![vec![0.0; n]; n];
    if !free.is_empty() {
        let reduced: Vec<Vec<f64>> =
            free.iter().map(|&a| free.iter().map(|&b| information[a][b]).collect()).collect();
        let inverse = invert(&reduced).ok_or(RatingError::NotConverged(iterations))?;
        for (a, &i) in free.iter().enumerate() {
            for (b, &j) in free.iter().enumerate() {
                covariance[i][j] = inverse[a][b];
            }
        }
    }
    let ratings = (0..n)
        .map(|i| {
            let half_width = Z95 * covariance[i][i].max(0.0).sqrt();
            RatingView {
                name: results.names[i].clone(),
                elo: elo[i],
                lower: elo[i] - half_width,
                upper: elo[i] + half_width,
                half_width,
                wdl: results.total_of(&results.names[i]),
            }
        })
        .collect();
    Ok(RatingFit { ratings, pin: options.pin.clone(), pin_elo: options.pin_elo, covariance, iterations })
}

/// A player's games against one anchor whose rating is fixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnchorGames {
    /// The anchor.
    pub anchor: String,
    /// Its rating on the scale.
    pub anchor_elo: f64,
    /// Half-width of its 95% interval on the scale (0 when unknown).
    pub anchor_half_width: f64,
    /// The player's results against it.
    pub wdl: Wdl,
}

/// A player placed on a scale of fixed anchors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// The player's Elo on the scale.
    pub elo: f64,
    /// Half-width of its 95% interval from its own games, the anchors held fixed: what
    /// `xq eval rate` plays down to its target.
    pub half_width: f64,
    /// Half-width with the anchors' own uncertainty added: each anchor's interval weighted by
    /// how much the player's rating leans on it (its share of the information), as if the
    /// anchors' errors were independent. The honest interval for comparing with players placed
    /// against other anchors.
    pub scale_half_width: f64,
    /// The player's games (virtual ones not counted).
    pub wdl: Wdl,
    /// Newton iterations taken.
    pub iterations: usize,
}

impl Placement {
    /// Lower end of the 95% interval (anchors fixed).
    pub fn lower(&self) -> f64 {
        self.elo - self.half_width
    }

    /// Upper end of the 95% interval (anchors fixed).
    pub fn upper(&self) -> f64 {
        self.elo + self.half_width
    }
}

/// The maximum-likelihood rating of one player against anchors held at their ratings, with
/// `prior_draws` virtual draws against each anchor it played (so a sweep stays finite).
///
/// ```
/// use xq_eval::rating::{AnchorGames, place_against_anchors};
/// use xq_eval::stats::Wdl;
/// let games = [
///     AnchorGames { anchor: "d2".into(), anchor_elo: 1000.0, anchor_half_width: 20.0, wdl: Wdl::new(12, 4, 4) },
///     AnchorGames { anchor: "d3".into(), anchor_elo: 1300.0, anchor_half_width: 25.0, wdl: Wdl::new(4, 4, 12) },
/// ];
/// let placed = place_against_anchors(&games, 1.0).unwrap();
/// assert!(placed.elo > 1000.0 && placed.elo < 1300.0);
/// assert!(placed.scale_half_width > placed.half_width);
/// ```
///
/// # Errors
/// [`RatingError::NoGames`] when no anchor was played, [`RatingError::InvalidOption`] for a
/// negative prior or an anchor rating that is not a number.
pub fn place_against_anchors(games: &[AnchorGames], prior_draws: f64) -> Result<Placement, RatingError> {
    check_prior(prior_draws)?;
    if let Some(bad) = games.iter().find(|g| !g.anchor_elo.is_finite() || !g.anchor_half_width.is_finite()) {
        return Err(RatingError::InvalidOption(format!("anchor {:?} has no finite rating", bad.anchor)));
    }
    let played: Vec<&AnchorGames> = games.iter().filter(|g| g.wdl.games() > 0).collect();
    if played.is_empty() {
        return Err(RatingError::NoGames);
    }
    let terms: Vec<(f64, f64, f64)> = played
        .iter()
        .map(|g| (g.anchor_elo, g.wdl.points() + 0.5 * prior_draws, g.wdl.games() as f64 + prior_draws))
        .collect();
    let log_likelihood = |r: f64| -> f64 {
        terms
            .iter()
            .map(|&(a, points, n)| {
                let p = expected_score(r - a).clamp(1e-300, 1.0 - 1e-16);
                points * p.ln() + (n - points) * (1.0 - p).ln()
            })
            .sum()
    };
    // Start from the games-weighted mean anchor: the likelihood is concave, so Newton from
    // anywhere converges with the step cap and halving.
    let total: f64 = terms.iter().map(|t| t.2).sum();
    let mut elo = terms.iter().map(|t| t.0 * t.2).sum::<f64>() / total;
    let mut iterations = 0;
    loop {
        if iterations == 200 {
            return Err(RatingError::NotConverged(iterations));
        }
        iterations += 1;
        let (mut gradient, mut information) = (0.0, 0.0);
        for &(a, points, n) in &terms {
            let p = expected_score(elo - a);
            gradient += ELO_SLOPE * (points - n * p);
            information += ELO_SLOPE * ELO_SLOPE * n * p * (1.0 - p);
        }
        if information <= 0.0 || !information.is_finite() {
            return Err(RatingError::NotConverged(iterations));
        }
        let step = (gradient / information).clamp(-MAX_STEP_ELO, MAX_STEP_ELO);
        let before = log_likelihood(elo);
        let mut fraction = 1.0;
        while log_likelihood(elo + fraction * step) < before - 1e-12 && fraction > 1e-6 {
            fraction *= 0.5;
        }
        elo += fraction * step;
        if (fraction * step).abs() < 1e-7 {
            break;
        }
    }
    let weights: Vec<f64> = terms
        .iter()
        .map(|&(a, _, n)| {
            let p = expected_score(elo - a);
            n * p * (1.0 - p)
        })
        .collect();
    let information: f64 = weights.iter().sum::<f64>() * ELO_SLOPE * ELO_SLOPE;
    let half_width = Z95 / information.sqrt();
    let weight_sum: f64 = weights.iter().sum();
    // dR/dA_j = w_j / Σw: moving one anchor drags the player by its share of the information.
    let anchor_spread: f64 =
        played.iter().zip(&weights).map(|(g, w)| (w / weight_sum * g.anchor_half_width).powi(2)).sum();
    let mut wdl = Wdl::default();
    for g in &played {
        wdl.add(g.wdl);
    }
    Ok(Placement {
        elo,
        half_width,
        scale_half_width: (half_width * half_width + anchor_spread).sqrt(),
        wdl,
        iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_players_recover_the_score_based_elo() {
        // 30 of 40 points is a 75% score: 400·log10(3) ≈ 190.85 Elo without a prior.
        let mut games = PairwiseResults::new();
        games.add("a", "b", Wdl::new(25, 10, 5)).unwrap();
        let fit =
            fit_ratings(&games, &FitOptions { prior_draws: 0.0, ..FitOptions::pinned("b", 0.0) }).unwrap();
        assert!((fit.get("a").unwrap().elo - 400.0 * 3f64.log10()).abs() < 1e-6);
        assert_eq!(fit.get("b").unwrap().half_width, 0.0);
    }

    #[test]
    fn inversion_recovers_the_identity() {
        let m = vec![vec![4.0, 1.0, 0.5], vec![1.0, 3.0, 0.2], vec![0.5, 0.2, 2.0]];
        let inv = invert(&m).unwrap();
        for (i, row) in m.iter().enumerate() {
            for j in 0..3 {
                let product: f64 = row.iter().zip(&inv).map(|(a, inv_row)| a * inv_row[j]).sum();
                assert!((product - f64::from(u8::from(i == j))).abs() < 1e-12);
            }
        }
        assert!(invert(&[vec![1.0, 1.0], vec![1.0, 1.0]]).is_none());
    }
}
