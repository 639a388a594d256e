//! Match statistics: W/D/L and pentanomial counts, Elo with 95% intervals, normalized Elo, LOS
//! and the generalized SPRT (GSPRT) on pentanomial frequencies.
//!
//! Conventions follow fastchess (`src/matchmaking/elo/elo_wdl.cpp`, `elo_pentanomial.cpp`,
//! `src/matchmaking/sprt/sprt.cpp`) and Fishtest (`server/fishtest/stats/stat_util.py`,
//! `LLR_logistic`/`MLE_expected` by Michel Van den Bergh):
//!
//! * score `s = (W + D/2) / N`; logistic Elo `E(s) = -400·log10(1/s − 1)`;
//! * trinomial variance per game `σ² = w(1−s)² + d(½−s)² + l(0−s)²` (w, d, l frequencies);
//! * pentanomial variance per game pair `σ²ₚ = Σ fᵢ(aᵢ − s)²` over the pair scores
//!   `aᵢ ∈ {0, ¼, ½, ¾, 1}` (the pair's points divided by two);
//! * the 95% Elo interval is the profile-likelihood interval of the score (the scores `s` whose
//!   likelihood ratio against the best fit is within χ²₁(0.95) = 3.841, the outcome frequencies
//!   refitted for each `s`), mapped through `E`, with one virtual sample split between the worst
//!   and the best outcome (Laplace's rule); the normal interval `s ± z·σ/√N`
//!   (z = 1.959963984540054) is kept for nElo and LOS, where the score enters linearly;
//! * normalized Elo `nElo = (s − ½)/σ_game · 800/ln 10` where `σ_game = σ` for trinomial counts
//!   and `σ_game = √2·σₚ` for pentanomial counts (a pair averages two games, so its variance is
//!   half a game's); this is fastchess's `scoreToNeloDiff` and Fishtest's "normalized Elo";
//! * LOS: trinomial `Φ((W − L)/√(W + L))` (the classic formula of the Chess Programming Wiki,
//!   used by fastchess's `EloWDL::los`), pentanomial `Φ((s − ½)/(σₚ/√N))`.

use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;
use thiserror::Error;

/// Two-sided 95% normal quantile, as fastchess's `CI95zscore`.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Why statistics could not be computed from the given counts or settings.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum StatsError {
    /// There are no games (or no complete game pairs).
    #[error("no games to compute statistics from")]
    NoGames,
    /// An SPRT setting is out of range.
    #[error("invalid SPRT setting: {0}")]
    InvalidSprt(String),
}

/// Win/draw/loss counts from one player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts from wins, draws and losses.
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl { wins, draws, losses }
    }

    /// Total games.
    pub const fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points (win 1, draw ½, loss 0; 第14条 14.1).
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The same games from the opponent's point of view.
    pub const fn flipped(&self) -> Wdl {
        Wdl { wins: self.losses, draws: self.draws, losses: self.wins }
    }

    /// Adds another tally.
    pub fn add(&mut self, other: Wdl) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }

    /// Adds one game scored 1 (win), ½ (draw) or 0 (loss) given as half points 2, 1, 0.
    pub fn add_half_points(&mut self, half_points: u8) {
        match half_points {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Mean score per game.
    pub fn score(&self) -> Result<f64, StatsError> {
        let n = self.games();
        if n == 0 {
            return Err(StatsError::NoGames);
        }
        Ok(self.points() / n as f64)
    }
}

/// Pentanomial counts of game pairs (an opening played twice with colours swapped), indexed by
/// the pair's points in half points: `[LL, LD+DL, LW+DD+WL, DW+WD, WW]`.
///
/// ```
/// use xq_eval::stats::Pentanomial;
/// let mut p = Pentanomial::default();
/// p.add_pair(2, 1); // a win and a draw: 1½ points
/// assert_eq!(p.counts, [0, 0, 0, 1, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pentanomial {
    /// Number of pairs that scored 0, ½, 1, 1½ and 2 points.
    pub counts: [u64; 5],
}

/// Pair scores per game for each pentanomial category.
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

impl Pentanomial {
    /// Counts given as `[LL, LD, DD+WL, WD, WW]`.
    pub const fn new(counts: [u64; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    /// Adds a pair from the two games' half points (2 win, 1 draw, 0 loss).
    pub fn add_pair(&mut self, first: u8, second: u8) {
        let index = usize::from(first.min(2) + second.min(2));
        self.counts[index] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The same pairs from the opponent's point of view.
    pub fn flipped(&self) -> Pentanomial {
        let mut counts = self.counts;
        counts.reverse();
        Pentanomial { counts }
    }

    /// Mean score per game and variance of the per-game pair score (`σ²ₚ`).
    fn moments(&self) -> Result<(f64, f64), StatsError> {
        let n = self.pairs();
        if n == 0 {
            return Err(StatsError::NoGames);
        }
        let freqs = self.counts.map(|c| c as f64 / n as f64);
        let score: f64 = freqs.iter().zip(PAIR_SCORES).map(|(f, a)| f * a).sum();
        let var: f64 = freqs.iter().zip(PAIR_SCORES).map(|(f, a)| f * (a - score).powi(2)).sum();
        Ok((score, var))
    }
}

/// Logistic Elo difference for a score: `-400·log10(1/s − 1)`; ±∞ at 0 and 1.
///
/// ```
/// use xq_eval::stats::score_to_elo;
/// assert!((score_to_elo(0.75) - 190.848).abs() < 1e-3);
/// // An even score is +0, never -0 (which prints as "-0.0").
/// assert!(score_to_elo(0.5).is_sign_positive());
/// ```
pub fn score_to_elo(score: f64) -> f64 {
    if score <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if score >= 1.0 {
        return f64::INFINITY;
    }
    // Adding +0 turns the -0 of an even score into +0.
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// Expected score for a logistic Elo difference: `1/(1 + 10^(−elo/400))`.
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The factor `800/ln 10` that turns a normalized score (in σ units) into normalized Elo.
pub const NELO_SCALE: f64 = 800.0 / LN_10;

/// An estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Point estimate.
    #[serde(with = "json_f64")]
    pub value: f64,
    /// Lower end of the 95% interval.
    #[serde(with = "json_f64")]
    pub lower: f64,
    /// Upper end of the 95% interval.
    #[serde(with = "json_f64")]
    pub upper: f64,
}

/// A number that may be infinite (a 100% score, a single game pair) in JSON, which has no
/// infinities: serde_json would write `null` and then fail to read it back as a number. Finite
/// values stay numbers; ±∞ and NaN are written as the strings `"inf"`, `"-inf"` and `"nan"`,
/// and read back from those (or from a number). Use with `#[serde(with = "json_f64")]`.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Bound(#[serde(with = "xq_eval::stats::json_f64")] f64);
/// let text = serde_json::to_string(&[Bound(f64::INFINITY), Bound(2.5)]).unwrap();
/// assert_eq!(text, r#"["inf",2.5]"#);
/// let back: Vec<Bound> = serde_json::from_str(&text).unwrap();
/// assert_eq!(back, [Bound(f64::INFINITY), Bound(2.5)]);
/// ```
pub mod json_f64 {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `x`: a number, or `"inf"`, `"-inf"`, `"nan"`.
    pub fn serialize<S: Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if x.is_finite() {
            serializer.serialize_f64(*x)
        } else if x.is_nan() {
            serializer.serialize_str("nan")
        } else if *x > 0.0 {
            serializer.serialize_str("inf")
        } else {
            serializer.serialize_str("-inf")
        }
    }

    /// Reads a number, or `"inf"`, `"-inf"`, `"nan"`.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Repr {
            Number(f64),
            Text(String),
        }
        match Repr::deserialize(deserializer)? {
            Repr::Number(x) => Ok(x),
            Repr::Text(text) => match text.as_str() {
                "inf" | "+inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                "nan" => Ok(f64::NAN),
                other => Err(serde::de::Error::custom(format!("{other:?} is not a number"))),
            },
        }
    }

    /// The same for an optional triple such as `[elo, lower, upper]`.
    pub mod triple {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        #[derive(Serialize, Deserialize)]
        struct Value(#[serde(with = "super")] f64);

        /// Writes `None` as `null` and each number as [`super::serialize`] does.
        pub fn serialize<S: Serializer>(triple: &Option<[f64; 3]>, serializer: S) -> Result<S::Ok, S::Error> {
            triple.map(|t| t.map(Value)).serialize(serializer)
        }

        /// Reads what [`serialize`] writes.
        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<[f64; 3]>, D::Error> {
            let triple = Option::<[Value; 3]>::deserialize(deserializer)?;
            Ok(triple.map(|t| t.map(|v| v.0)))
        }
    }
}

impl Interval {
    /// Half the interval's width, the "±" that fastchess prints.
    pub fn half_width(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

/// Which variance model an estimate used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VarianceModel {
    /// Games counted independently (W/D/L).
    Trinomial,
    /// Game pairs counted as units (pentanomial).
    Pentanomial,
}

/// Elo, normalized Elo and LOS for a set of results.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// The variance model.
    pub model: VarianceModel,
    /// Games (trinomial) or pairs (pentanomial) counted.
    pub samples: u64,
    /// Mean score per game.
    pub score: f64,
    /// Logistic Elo difference with its 95% interval.
    pub elo: Interval,
    /// Normalized Elo with its 95% interval.
    pub nelo: Interval,
    /// Likelihood of superiority, in [0, 1].
    pub los: f64,
}

/// Builds an estimate from the observed `counts` of each outcome, whose per-game scores are
/// `outcome_scores` (W/D/L: 0, ½, 1; pentanomial: the pair's points over two), the mean score,
/// the variance of one sample (`σ²`) and the number of games per sample (1 for trinomial, 2 for
/// pentanomial).
///
/// One sample says nothing about the spread (its variance is 0 by construction), so with fewer
/// than two the interval is unbounded and the LOS ½: one game pair won is not certainty.
///
/// The Elo interval is [`profile_likelihood_interval`]'s, which stays inside (0, 1) and is
/// asymmetric where the score is near an end; the normal interval `s ± z·σ/√N` mapped through
/// the logistic curve (fastchess's, and this crate's before) reached past a score of 1 for a
/// strong result: +17 =1 −2 read 338 ± 728 while the better +18 =2 −0 read +512 to +∞.
///
/// Samples that all scored the same have no spread, and the normal approximation would claim
/// certainty from two equal pairs. For nElo and the LOS their standard error is taken as if one
/// more sample had been seen, split between a loss and a win (Laplace's rule of succession):
/// two equal pairs at ¾ give an LOS of 0.92, a sweep of 23 pairs still an LOS of 1. Samples that
/// differ use their own variance unchanged.
fn estimate<const N: usize>(
    model: VarianceModel,
    counts: &[u64; N],
    outcome_scores: &[f64; N],
    score: f64,
    var: f64,
    games_per_sample: f64,
) -> EloEstimate {
    let samples: u64 = counts.iter().sum();
    if samples < 2 {
        let unknown = |value: f64| Interval { value, lower: f64::NEG_INFINITY, upper: f64::INFINITY };
        let elo = unknown(score_to_elo(score));
        return EloEstimate { model, samples, score, elo, nelo: unknown(0.0), los: 0.5 };
    }
    let n = samples as f64;
    let stderr = if var > 0.0 {
        (var / n).sqrt()
    } else {
        let with_prior = (n * score + 0.5) / (n + 1.0);
        let spread =
            n * (score - with_prior).powi(2) + 0.5 * with_prior.powi(2) + 0.5 * (1.0 - with_prior).powi(2);
        (spread / (n + 1.0) / (n + 1.0)).sqrt()
    };
    let (lower, upper) = profile_likelihood_interval(counts, outcome_scores);
    let elo = Interval {
        value: score_to_elo(score),
        // A sweep's own score is an end of the scale: its interval must reach it.
        lower: if score <= 0.0 { f64::NEG_INFINITY } else { score_to_elo(lower.min(score)) },
        upper: if score >= 1.0 { f64::INFINITY } else { score_to_elo(upper.max(score)) },
    };
    let sigma_game = (games_per_sample * var).sqrt();
    let nelo = if sigma_game > 0.0 {
        let to_nelo = |s: f64| (s - 0.5) / sigma_game * NELO_SCALE;
        Interval {
            value: to_nelo(score),
            lower: to_nelo(score - Z95 * stderr),
            upper: to_nelo(score + Z95 * stderr),
        }
    } else {
        // No spread: every sample scored the same; nElo is undefined, report 0 like fastchess.
        Interval { value: 0.0, lower: 0.0, upper: 0.0 }
    };
    let los = normal_cdf((score - 0.5) / stderr);
    EloEstimate { model, samples, score, elo, nelo, los }
}

/// χ² quantile with one degree of freedom at 0.95 (= Z95²): the likelihood-ratio threshold of a
/// 95% profile-likelihood interval.
const CHI2_1_95: f64 = Z95 * Z95;

/// The 95% profile-likelihood interval of the mean score, as scores in [0, 1].
///
/// The outcomes are multinomial; for a candidate mean score `t` the likelihood is maximised
/// over every outcome distribution with mean `t` ([`mle_expected`]), and the interval holds the
/// `t` whose likelihood ratio against the unconstrained fit, `2·Σ cᵢ ln(fᵢ/pᵢ(t))`, is at most
/// [`CHI2_1_95`]. One virtual sample is split between the worst and the best outcome first
/// (Laplace's rule of succession), so an interval exists for a sweep or for all draws, and a
/// score near 0 or 1 gets an asymmetric interval inside the scale instead of one that reaches
/// past it. The same idea as BayesElo's and Ordo's likelihood intervals, on one pairing.
///
/// ```
/// use xq_eval::stats::profile_likelihood_interval;
/// // +17 =1 −2 in ten pairs (score 0.875) and the better +18 =2 −0 (score 0.95).
/// let (lo_a, hi_a) = profile_likelihood_interval(&[0, 0, 2, 1, 7], &[0.0, 0.25, 0.5, 0.75, 1.0]);
/// let (lo_b, hi_b) = profile_likelihood_interval(&[0, 0, 0, 2, 8], &[0.0, 0.25, 0.5, 0.75, 1.0]);
/// assert!(lo_a < 0.875 && 0.875 < hi_a && hi_a < 1.0);
/// assert!(lo_a < lo_b && hi_a < hi_b && hi_b < 1.0);
/// ```
pub fn profile_likelihood_interval<const N: usize>(
    counts: &[u64; N],
    outcome_scores: &[f64; N],
) -> (f64, f64) {
    let (worst, best) = extreme_outcomes(outcome_scores);
    let mut weights = counts.map(|c| c as f64);
    weights[worst] += 0.5;
    weights[best] += 0.5;
    let total: f64 = weights.iter().sum();
    let freqs = weights.map(|w| w / total);
    let fitted: f64 = freqs.iter().zip(outcome_scores).map(|(f, a)| f * a).sum();
    let (min_score, max_score) = (outcome_scores[worst], outcome_scores[best]);
    let ratio = |t: f64| -> f64 {
        let Some(p) = constrained_mle(&freqs, outcome_scores, t) else { return f64::INFINITY };
        let sum: f64 = (0..N).filter(|&i| freqs[i] > 0.0).map(|i| freqs[i] * (freqs[i] / p[i]).ln()).sum();
        2.0 * total * sum
    };
    // The ratio is 0 at the fitted score and grows towards either end: bisect each side for
    // the point where it crosses the threshold.
    let crossing = |mut inside: f64, mut outside: f64| -> f64 {
        for _ in 0..80 {
            let mid = 0.5 * (inside + outside);
            if ratio(mid) <= CHI2_1_95 {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        0.5 * (inside + outside)
    };
    (crossing(fitted, min_score), crossing(fitted, max_score))
}

/// Indices of the lowest- and highest-scoring outcome.
fn extreme_outcomes<const N: usize>(outcome_scores: &[f64; N]) -> (usize, usize) {
    let mut worst = 0;
    let mut best = 0;
    for (i, &a) in outcome_scores.iter().enumerate() {
        if a < outcome_scores[worst] {
            worst = i;
        }
        if a > outcome_scores[best] {
            best = i;
        }
    }
    (worst, best)
}

/// Per-game scores of a W/D/L count in [`Wdl::estimate`]'s order: loss, draw, win.
const GAME_SCORES: [f64; 3] = [0.0, 0.5, 1.0];

impl Wdl {
    /// Elo, nElo and LOS with trinomial variance. LOS uses `Φ((W − L)/√(W + L))`.
    ///
    /// ```
    /// use xq_eval::stats::Wdl;
    /// let e = Wdl::new(30, 40, 10).estimate().unwrap();
    /// assert!((e.score - 0.625).abs() < 1e-12);
    /// assert!(e.elo.lower < e.elo.value && e.elo.value < e.elo.upper);
    /// ```
    pub fn estimate(&self) -> Result<EloEstimate, StatsError> {
        let n = self.games();
        let score = self.score()?;
        let nf = n as f64;
        let (w, d, l) = (self.wins as f64 / nf, self.draws as f64 / nf, self.losses as f64 / nf);
        let var = w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2);
        let counts = [self.losses, self.draws, self.wins];
        let mut e = estimate(VarianceModel::Trinomial, &counts, &GAME_SCORES, score, var, 1.0);
        e.los = trinomial_los(*self);
        Ok(e)
    }
}

impl Pentanomial {
    /// Elo, nElo and LOS with pentanomial variance.
    pub fn estimate(&self) -> Result<EloEstimate, StatsError> {
        let (score, var) = self.moments()?;
        Ok(estimate(VarianceModel::Pentanomial, &self.counts, &PAIR_SCORES, score, var, 2.0))
    }
}

/// Likelihood of superiority from W/D/L: `½·(1 + erf((W − L)/√(2(W + L))))`; ½ without
/// decisive games.
pub fn trinomial_los(wdl: Wdl) -> f64 {
    let decisive = (wdl.wins + wdl.losses) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    normal_cdf((wdl.wins as f64 - wdl.losses as f64) / decisive.sqrt())
}

/// The standard normal distribution function Φ.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The error function, accurate to about 1e-15 (series below 2.5, continued fraction above).
pub fn erf(x: f64) -> f64 {
    1.0 - erfc(x)
}

/// The complementary error function `1 − erf(x)`, without cancellation for large `x`.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.5 {
        // Maclaurin series erf(x) = 2/√π Σ (−1)ⁿ x^(2n+1) / (n!(2n+1)).
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x2 / n;
            sum += term / (2.0 * n + 1.0);
        }
        return 1.0 - sum * std::f64::consts::FRAC_2_SQRT_PI;
    }
    // Lentz's continued fraction erfc(x) = e^(−x²)/√π · 1/(x + ½/(x + 1/(x + 3/2/(x + …)))).
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for i in 1..300 {
        let a = i as f64 / 2.0;
        d = x + a * d;
        d = if d.abs() < tiny { tiny } else { d };
        c = x + a / c;
        c = if c.abs() < tiny { tiny } else { c };
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (f * std::f64::consts::PI.sqrt())
}

/// How the SPRT's Elo bounds are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EloModel {
    /// Normalized Elo (Fishtest's and fastchess's default): `s = ½ + nElo/(800/ln 10)·σ_game`.
    Normalized,
    /// Logistic Elo: `s = 1/(1 + 10^(−elo/400))`.
    Logistic,
}

/// How the log-likelihood ratio is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlrMethod {
    /// The normal approximation `LLR ≈ N·(s₁ − s₀)(2s − s₀ − s₁)/(2σ²ₚ)` of Van den Bergh's
    /// GSPRT, as fastchess's `SPRT::getLLR` computes it from pentanomial frequencies.
    Approximate,
    /// The exact GSPRT: `LLR = N·Σ fᵢ ln(p₁ᵢ/p₀ᵢ)` where `pⱼ` is the maximum-likelihood
    /// pentanomial distribution whose expected score is `sⱼ` (Fishtest's `MLE_expected` /
    /// `LLR_logistic`). Zero counts are regularized with 1e-3 as Fishtest does. For the
    /// normalized model `sⱼ` is taken at the observed σ, as in the approximation.
    Exact,
}

/// Settings of a (generalized) SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtConfig {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1 (greater than `elo0`).
    pub elo1: f64,
    /// Type I error (false accept of H1).
    pub alpha: f64,
    /// Type II error (false accept of H0).
    pub beta: f64,
    /// How `elo0` and `elo1` are read.
    pub model: EloModel,
    /// How the LLR is computed.
    pub method: LlrMethod,
}

impl SprtConfig {
    /// Normalized-Elo GSPRT with the approximate LLR, the fastchess default.
    pub fn normalized(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> SprtConfig {
        SprtConfig { elo0, elo1, alpha, beta, model: EloModel::Normalized, method: LlrMethod::Approximate }
    }

    /// Checks the ranges: `0 < α, β`, `α + β < 1`, `elo0 < elo1`, finite values.
    pub fn validate(&self) -> Result<(), StatsError> {
        let bad = |why: &str| Err(StatsError::InvalidSprt(why.to_string()));
        if !(self.elo0.is_finite() && self.elo1.is_finite()) || self.elo0 >= self.elo1 {
            return bad("elo0 must be below elo1 and both finite");
        }
        if !(self.alpha > 0.0 && self.beta > 0.0 && self.alpha + self.beta < 1.0) {
            return bad("alpha and beta must be positive with alpha + beta < 1");
        }
        Ok(())
    }

    /// Lower bound `ln(β/(1 − α))`: at or below it, H0 is accepted.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// Upper bound `ln((1 − β)/α)`: at or above it, H1 is accepted.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }
}

/// The state of an SPRT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SprtState {
    /// Neither bound reached: play more pairs.
    Continue,
    /// LLR at or above the upper bound.
    AcceptH1,
    /// LLR at or below the lower bound.
    AcceptH0,
}

/// The outcome of an SPRT evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtResult {
    /// The log-likelihood ratio.
    pub llr: f64,
    /// `ln(β/(1 − α))`.
    pub lower_bound: f64,
    /// `ln((1 − β)/α)`.
    pub upper_bound: f64,
    /// Decision.
    pub state: SprtState,
}

/// Evaluates the GSPRT on pentanomial counts. With no pairs the LLR is 0; so it is with no
/// spread in the results (fastchess returns 0 when the variance is 0), except for the exact
/// logistic test, whose regularized counts give a finite LLR (Fishtest's `LLR_logistic`).
///
/// ```
/// use xq_eval::stats::{Pentanomial, SprtConfig, SprtState, sprt};
/// let cfg = SprtConfig::normalized(0.0, 5.0, 0.05, 0.05);
/// let r = sprt(&Pentanomial::new([10, 50, 100, 60, 15]), &cfg).unwrap();
/// assert_eq!(r.state, SprtState::Continue);
/// ```
pub fn sprt(penta: &Pentanomial, cfg: &SprtConfig) -> Result<SprtResult, StatsError> {
    cfg.validate()?;
    let llr = llr(penta, cfg);
    let (lower_bound, upper_bound) = (cfg.lower_bound(), cfg.upper_bound());
    let state = if llr >= upper_bound {
        SprtState::AcceptH1
    } else if llr <= lower_bound {
        SprtState::AcceptH0
    } else {
        SprtState::Continue
    };
    Ok(SprtResult { llr, lower_bound, upper_bound, state })
}

/// The log-likelihood ratio of H1 against H0 for pentanomial counts.
pub fn llr(penta: &Pentanomial, cfg: &SprtConfig) -> f64 {
    let Ok((score, var)) = penta.moments() else { return 0.0 };
    // The exact logistic GSPRT needs no variance (zero counts are regularized), so a player
    // that wins every pair still passes it; the other combinations divide by the variance.
    let needs_variance = !(cfg.model == EloModel::Logistic && cfg.method == LlrMethod::Exact);
    if var <= 0.0 && needs_variance {
        return 0.0;
    }
    let (s0, s1) = match cfg.model {
        EloModel::Logistic => (elo_to_score(cfg.elo0), elo_to_score(cfg.elo1)),
        EloModel::Normalized => {
            let sigma_game = (2.0 * var).sqrt();
            (0.5 + cfg.elo0 / NELO_SCALE * sigma_game, 0.5 + cfg.elo1 / NELO_SCALE * sigma_game)
        }
    };
    let n = penta.pairs() as f64;
    match cfg.method {
        LlrMethod::Approximate => n * (s1 - s0) * (2.0 * score - s0 - s1) / (2.0 * var),
        LlrMethod::Exact => exact_llr(penta, s0, s1),
    }
}

/// `N·Σ fᵢ ln(p₁ᵢ/p₀ᵢ)` with `pⱼ = mle_expected(f, sⱼ)`.
fn exact_llr(penta: &Pentanomial, s0: f64, s1: f64) -> f64 {
    let regularized = penta.counts.map(|c| if c == 0 { 1e-3 } else { c as f64 });
    let n: f64 = regularized.iter().sum();
    let freqs = regularized.map(|c| c / n);
    let (Some(p0), Some(p1)) = (mle_expected(&freqs, s0), mle_expected(&freqs, s1)) else {
        return 0.0;
    };
    let sum: f64 = (0..5).map(|i| freqs[i] * (p1[i] / p0[i]).ln()).sum();
    n * sum
}

/// The maximum-likelihood distribution on the pair scores with expected score `target`, given
/// observed frequencies `f` (all positive), as [`constrained_mle`] over the pair scores.
fn mle_expected(f: &[f64; 5], target: f64) -> Option<[f64; 5]> {
    constrained_mle(f, &PAIR_SCORES, target)
}

/// The maximum-likelihood distribution on outcomes scoring `outcome_scores` with expected score
/// `target`, given observed frequencies `f`: `pᵢ = fᵢ/(1 + λ(aᵢ − target))`, where λ solves
/// `Σ fᵢ(aᵢ − target)/(1 + λ(aᵢ − target)) = 0` (Van den Bergh, "Generalized SPRT"). `None` when
/// the target lies outside the open range of the scores.
fn constrained_mle<const N: usize>(f: &[f64; N], outcome_scores: &[f64; N], target: f64) -> Option<[f64; N]> {
    let (worst, best) = extreme_outcomes(outcome_scores);
    if !(target > outcome_scores[worst] && target < outcome_scores[best]) {
        return None;
    }
    let d = outcome_scores.map(|a| a - target);
    // 1 + λ·dᵢ > 0 for every i: λ ∈ (−1/max d, −1/min d); the equation is decreasing in λ.
    let max_d = d.iter().copied().fold(f64::MIN, f64::max);
    let min_d = d.iter().copied().fold(f64::MAX, f64::min);
    let (mut lo, mut hi) = (-1.0 / max_d, -1.0 / min_d);
    let g = |lambda: f64| -> f64 { (0..N).map(|i| f[i] * d[i] / (1.0 + lambda * d[i])).sum() };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    Some(std::array::from_fn(|i| f[i] / (1.0 + lambda * d[i])))
}

/// Totals of a set of results from one player's point of view, overall and by colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColourSplit {
    /// All games.
    pub total: Wdl,
    /// Games played with red.
    pub as_red: Wdl,
    /// Games played with black.
    pub as_black: Wdl,
}

impl ColourSplit {
    /// Adds a game scored in half points (2 win, 1 draw, 0 loss) played with red or black.
    pub fn add(&mut self, as_red: bool, half_points: u8) {
        self.total.add_half_points(half_points);
        if as_red {
            self.as_red.add_half_points(half_points);
        } else {
            self.as_black.add_half_points(half_points);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn exact_logistic_sprt_accepts_a_clean_sweep() {
        let sweep = Pentanomial::new([0, 0, 0, 0, 30]);
        let exact = SprtConfig {
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
            method: LlrMethod::Exact,
        };
        assert_eq!(sprt(&sweep, &exact).unwrap().state, SprtState::AcceptH1);
        // Without a variance the other variants cannot tell.
        let approx = SprtConfig { method: LlrMethod::Approximate, ..exact };
        assert_eq!(llr(&sweep, &approx), 0.0);
        assert_eq!(llr(&Pentanomial::new([0, 0, 0, 0, 0]), &exact), 0.0);
    }

    #[test]
    fn a_sweep_is_all_but_certainly_better_and_all_draws_are_even() {
        let sweep = Pentanomial::new([0, 0, 0, 0, 23]).estimate().unwrap();
        assert_eq!(sweep.los, 1.0);
        assert_eq!(sweep.elo.value, f64::INFINITY);
        let swept = Pentanomial::new([23, 0, 0, 0, 0]).estimate().unwrap();
        assert!(swept.los < 1e-12, "{}", swept.los);
        assert_eq!(swept.elo.value, f64::NEG_INFINITY);
        let draws = Pentanomial::new([0, 0, 23, 0, 0]).estimate().unwrap();
        assert_eq!((draws.los, draws.elo.value), (0.5, 0.0));
        // Trinomial LOS keeps its formula: Φ(46/√46) = Φ(6.78).
        let trinomial = Wdl::new(46, 0, 0).estimate().unwrap().los;
        assert!(trinomial > 0.999_999_999 && trinomial < 1.0, "{trinomial}");
    }

    #[test]
    fn one_sample_has_no_interval_and_no_superiority() {
        // Before: a single won pair printed "± 0.0" with LOS 100%.
        let one = Pentanomial::new([0, 0, 0, 1, 0]).estimate().unwrap();
        assert_eq!((one.elo.lower, one.elo.upper, one.los), (f64::NEG_INFINITY, f64::INFINITY, 0.5));
        assert!(one.elo.value > 0.0);
        // Before: two equal pairs printed "± 0.0" with LOS 100% (no spread, so no doubt).
        let two = Pentanomial::new([0, 0, 0, 2, 0]).estimate().unwrap();
        assert!(two.los > 0.9 && two.los < 0.95, "{}", two.los);
        assert!(two.elo.lower > -300.0 && two.elo.lower < 0.0, "{:?}", two.elo);
        assert!(two.elo.upper > 300.0 && two.elo.upper.is_finite(), "{:?}", two.elo);
        // A long sweep is still certain, and its lower bound finite.
        let sweep = Pentanomial::new([0, 0, 0, 0, 40]).estimate().unwrap();
        assert!(sweep.los > 0.999_999 && sweep.elo.lower > 400.0 && sweep.elo.lower.is_finite(), "{sweep:?}");
        let draws = Pentanomial::new([0, 0, 40, 0, 0]).estimate().unwrap();
        assert!(draws.elo.lower < 0.0 && draws.elo.upper > 0.0 && draws.elo.upper < 100.0, "{draws:?}");
    }

    #[test]
    fn a_better_result_has_a_higher_interval_and_neither_reaches_past_the_scale() {
        // The issue's two gauntlet results over ten pairs: +17 =1 −2 printed 338 ± 728 (its upper
        // end the score 0.9999, 1,600 Elo) beside +511.5 [+359.7, +inf] for +18 =2 −0.
        let weaker = Pentanomial::new([0, 0, 2, 1, 7]).estimate().unwrap().elo;
        let better = Pentanomial::new([0, 0, 0, 2, 8]).estimate().unwrap().elo;
        for e in [weaker, better] {
            assert!(e.lower.is_finite() && e.upper.is_finite(), "{e:?}");
            assert!(e.lower < e.value && e.value < e.upper, "{e:?}");
        }
        assert!(close(weaker.value, 338.04, 0.01) && close(better.value, 511.5, 0.1));
        assert!(weaker.lower < better.lower && weaker.upper < better.upper, "{weaker:?} {better:?}");
        assert!(weaker.upper - weaker.lower < 500.0, "{weaker:?}");
        // Pinned: the profile-likelihood ends with Laplace's virtual sample.
        assert!(close(weaker.lower, 89.6, 0.5) && close(weaker.upper, 521.9, 0.5), "{weaker:?}");
        assert!(close(better.lower, 140.6, 0.5) && close(better.upper, 696.3, 0.5), "{better:?}");
    }

    #[test]
    fn likelihood_intervals_agree_with_the_normal_one_away_from_the_ends() {
        // 285 pairs near an even score: the normal interval is a good approximation there, and
        // the two must agree within a few Elo (Elo is nearly linear in the score at ½).
        for counts in [[10, 50, 100, 60, 15], [15, 60, 100, 50, 10], [2, 40, 160, 40, 3]] {
            let p = Pentanomial::new(counts);
            let e = p.estimate().unwrap();
            let (score, var) = p.moments().unwrap();
            let stderr = (var / p.pairs() as f64).sqrt();
            let normal = (score_to_elo(score - Z95 * stderr), score_to_elo(score + Z95 * stderr));
            assert!(
                close(e.elo.lower, normal.0, 2.0) && close(e.elo.upper, normal.1, 2.0),
                "{e:?} {normal:?}"
            );
        }
        // The trinomial interval too, from W/D/L.
        let e = Wdl::new(120, 200, 100).estimate().unwrap();
        let s = e.score;
        let var = (120.0 * (1.0 - s).powi(2) + 200.0 * (0.5 - s).powi(2) + 100.0 * s.powi(2)) / 420.0;
        let stderr = (var / 420.0f64).sqrt();
        assert!(close(e.elo.lower, score_to_elo(s - Z95 * stderr), 2.0), "{e:?}");
        assert!(close(e.elo.upper, score_to_elo(s + Z95 * stderr), 2.0), "{e:?}");
    }

    #[test]
    fn elo_of_75_percent() {
        assert!(close(score_to_elo(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(score_to_elo(0.5), 0.0, 1e-12));
        assert!(close(elo_to_score(score_to_elo(0.3)), 0.3, 1e-12));
        assert_eq!(score_to_elo(1.0), f64::INFINITY);
    }

    #[test]
    fn erf_matches_tables() {
        // Abramowitz & Stegun table 7.1 and Φ(1.959963984540054) = 0.975.
        assert!(close(erf(0.5), 0.520_499_877_813_046_5, 1e-14));
        assert!(close(erf(1.0), 0.842_700_792_949_714_9, 1e-14));
        assert!(close(erf(2.0), 0.995_322_265_018_952_7, 1e-14));
        assert!(close(erfc(3.0), 2.209_049_699_858_544e-5, 1e-18));
        assert!(close(normal_cdf(Z95), 0.975, 1e-14));
        assert!(close(normal_cdf(-1.0), 0.158_655_253_931_457_05, 1e-14));
    }

    #[test]
    fn sprt_bounds() {
        let cfg = SprtConfig::normalized(0.0, 2.0, 0.05, 0.05);
        // ln(0.05/0.95) = −2.944438979166440, the bounds fastchess prints as (-2.94, 2.94).
        assert!(close(cfg.lower_bound(), -2.944_438_979_166_44, 1e-12));
        assert!(close(cfg.upper_bound(), 2.944_438_979_166_44, 1e-12));
        assert!(SprtConfig::normalized(5.0, 0.0, 0.05, 0.05).validate().is_err());
        assert!(SprtConfig::normalized(0.0, 5.0, 0.0, 0.05).validate().is_err());
    }

    #[test]
    fn no_games_is_an_error() {
        assert_eq!(Wdl::default().estimate(), Err(StatsError::NoGames));
        assert_eq!(Pentanomial::default().estimate(), Err(StatsError::NoGames));
        let cfg = SprtConfig::normalized(0.0, 5.0, 0.05, 0.05);
        assert_eq!(sprt(&Pentanomial::default(), &cfg).map(|r| r.state), Ok(SprtState::Continue));
    }

    #[test]
    fn flipping_negates() {
        let p = Pentanomial::new([3, 20, 50, 30, 7]);
        let (a, b) = (p.estimate().unwrap(), p.flipped().estimate().unwrap());
        assert!(close(a.elo.value, -b.elo.value, 1e-9));
        assert!(close(a.nelo.value, -b.nelo.value, 1e-9));
        assert!(close(a.los, 1.0 - b.los, 1e-12));
    }
}
