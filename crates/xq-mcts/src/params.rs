//! Search parameters, deserialisable from config files.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The most leaves one [`crate::Search::gather`] call collects from one tree (virtual-loss
/// counters are 16-bit).
pub const MAX_LEAVES_PER_STEP: usize = 4096;

/// How the root action is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// AlphaZero PUCT everywhere, Dirichlet noise at the root, move chosen from the visit
    /// counts with a temperature, policy target = visit distribution.
    #[default]
    Puct,
    /// Gumbel root search (Danihelka et al. 2022): Gumbel-top-k sampling of `gumbel_m` root
    /// moves, sequential halving, completed-Q improved policy as the target, and the
    /// deterministic improved-policy rule below the root.
    Gumbel,
}

/// Everything the search can be tuned by. Every field has a default (`#[serde(default)]`),
/// and unknown fields are rejected so a typo in a config file is an error.
///
/// ```
/// use xq_mcts::{Algorithm, SearchParams};
/// let p: SearchParams = serde_json::from_str(r#"{"algorithm": "gumbel", "visits": 64}"#).unwrap();
/// assert_eq!(p.algorithm, Algorithm::Gumbel);
/// assert_eq!(p.gumbel_m, 16);
/// assert!(serde_json::from_str::<SearchParams>(r#"{"visit": 64}"#).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchParams {
    /// `puct` (default) or `gumbel`.
    pub algorithm: Algorithm,
    /// The budget of a full search in visits (default 800): new simulations, each one leaf
    /// evaluation or one visit to a terminal node. The root's own evaluation is not counted,
    /// and visits kept from tree reuse do not count against the budget.
    pub visits: u32,
    /// PUCT exploration constant at low visit counts (default 1.25).
    pub c_puct_init: f32,
    /// PUCT growth base: `c = c_init + ln((N + c_base + 1) / c_base)` (default 19652).
    pub c_puct_base: f32,
    /// First-play urgency below the root: an unvisited child is scored
    /// `parent Q − fpu_reduction · sqrt(prior mass of visited children)` (default 0.25).
    pub fpu_reduction: f32,
    /// The same at the root (default 0.0, so noise-boosted moves get tried).
    pub root_fpu_reduction: f32,
    /// Dirichlet noise concentration at the root (default 0.3).
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors; 0 disables it (default 0.25). PUCT only, and
    /// only on full searches.
    pub dirichlet_fraction: f32,
    /// Move-choice temperature for the first `temperature_plies` plies of the game
    /// (default 1.0). PUCT only: Gumbel search samples through its Gumbel noise.
    pub temperature: f32,
    /// Game plies during which `temperature` applies (default 30).
    pub temperature_plies: u32,
    /// Temperature afterwards; 0 picks the most visited move (default 0.0).
    pub temperature_final: f32,
    /// Gumbel: number of root moves sampled by Gumbel-top-k (default 16).
    pub gumbel_m: u32,
    /// Gumbel: `c_visit` of σ(q̂) = (c_visit + max N)·c_scale·q̂ (default 50).
    pub gumbel_c_visit: f32,
    /// Gumbel: `c_scale` of σ (default 0.1, mctx's default `value_scale`; q̂ is rescaled to
    /// [0, 1] over the node's completed Q values).
    pub gumbel_c_scale: f32,
    /// Gumbel: scale of the Gumbel noise; 0 makes the search deterministic (evaluation
    /// matches), 1 samples (self-play). Default 1.0.
    pub gumbel_scale: f32,
    /// Playout-cap randomisation (KataGo): probability that a search is full (default 1.0 =
    /// always). Full searches use `visits`, get root noise and yield policy targets;
    /// the others use `fast_visits` and are value-only.
    pub full_search_probability: f32,
    /// The budget of a fast (value-only) search in visits (default 100).
    pub fast_visits: u32,
    /// Leaves the synchronous [`crate::Search::run`] gathers per evaluator call, using
    /// virtual loss when above 1 (default 1: the plain sequential search).
    pub leaves_per_step: u32,
    /// Keep the chosen child's subtree between moves (default true).
    pub reuse_tree: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            algorithm: Algorithm::Puct,
            visits: 800,
            c_puct_init: 1.25,
            c_puct_base: 19652.0,
            fpu_reduction: 0.25,
            root_fpu_reduction: 0.0,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.25,
            temperature: 1.0,
            temperature_plies: 30,
            temperature_final: 0.0,
            gumbel_m: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            gumbel_scale: 1.0,
            full_search_probability: 1.0,
            fast_visits: 100,
            leaves_per_step: 1,
            reuse_tree: true,
        }
    }
}

/// A parameter out of its range.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("search parameter {name} = {value} is invalid: {expected}")]
pub struct ParamsError {
    /// The field.
    pub name: &'static str,
    /// Its value, printed.
    pub value: String,
    /// What it must be.
    pub expected: &'static str,
}

impl SearchParams {
    /// Parameters for evaluation matches: no noise, no temperature, deterministic Gumbel.
    pub fn for_evaluation(mut self) -> SearchParams {
        self.dirichlet_fraction = 0.0;
        self.temperature = 0.0;
        self.temperature_final = 0.0;
        self.gumbel_scale = 0.0;
        self.full_search_probability = 1.0;
        self
    }

    /// The temperature for a move played at game ply `ply` (0 = the game's first move).
    pub fn temperature_at(&self, ply: u32) -> f32 {
        if ply < self.temperature_plies { self.temperature } else { self.temperature_final }
    }

    /// Checks every field's range.
    pub fn validate(&self) -> Result<(), ParamsError> {
        fn err(name: &'static str, value: impl ToString, expected: &'static str) -> Result<(), ParamsError> {
            Err(ParamsError { name, value: value.to_string(), expected })
        }
        let finite_nonneg = |x: f32| x.is_finite() && x >= 0.0;
        let unit = |x: f32| (0.0..=1.0).contains(&x);
        if self.visits == 0 {
            return err("visits", self.visits, "at least 1");
        }
        if self.fast_visits == 0 {
            return err("fast_visits", self.fast_visits, "at least 1");
        }
        if !(self.c_puct_init.is_finite() && self.c_puct_init > 0.0) {
            return err("c_puct_init", self.c_puct_init, "a positive number");
        }
        if !(self.c_puct_base.is_finite() && self.c_puct_base > 0.0) {
            return err("c_puct_base", self.c_puct_base, "a positive number");
        }
        if !finite_nonneg(self.fpu_reduction) {
            return err("fpu_reduction", self.fpu_reduction, "a non-negative number");
        }
        if !finite_nonneg(self.root_fpu_reduction) {
            return err("root_fpu_reduction", self.root_fpu_reduction, "a non-negative number");
        }
        if !(self.dirichlet_alpha.is_finite() && self.dirichlet_alpha > 0.0) {
            return err("dirichlet_alpha", self.dirichlet_alpha, "a positive number");
        }
        if !unit(self.dirichlet_fraction) {
            return err("dirichlet_fraction", self.dirichlet_fraction, "between 0 and 1");
        }
        if !finite_nonneg(self.temperature) {
            return err("temperature", self.temperature, "a non-negative number");
        }
        if !finite_nonneg(self.temperature_final) {
            return err("temperature_final", self.temperature_final, "a non-negative number");
        }
        if self.gumbel_m == 0 {
            return err("gumbel_m", self.gumbel_m, "at least 1");
        }
        if !finite_nonneg(self.gumbel_c_visit) {
            return err("gumbel_c_visit", self.gumbel_c_visit, "a non-negative number");
        }
        if !finite_nonneg(self.gumbel_c_scale) {
            return err("gumbel_c_scale", self.gumbel_c_scale, "a non-negative number");
        }
        if !finite_nonneg(self.gumbel_scale) {
            return err("gumbel_scale", self.gumbel_scale, "a non-negative number");
        }
        if !unit(self.full_search_probability) {
            return err("full_search_probability", self.full_search_probability, "between 0 and 1");
        }
        if !(1..=MAX_LEAVES_PER_STEP as u32).contains(&self.leaves_per_step) {
            return err("leaves_per_step", self.leaves_per_step, "between 1 and 4096");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_bad_values_are_named() {
        SearchParams::default().validate().unwrap();
        let e = SearchParams { dirichlet_fraction: 1.5, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.name, "dirichlet_fraction");
        let e = SearchParams { c_puct_init: f32::NAN, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.name, "c_puct_init");
        let e = SearchParams { visits: 0, ..Default::default() }.validate().unwrap_err();
        assert!(e.to_string().contains("visits = 0"));
    }

    #[test]
    fn temperature_schedule_switches_after_the_opening() {
        let p = SearchParams {
            temperature: 1.0,
            temperature_plies: 2,
            temperature_final: 0.1,
            ..Default::default()
        };
        assert_eq!(p.temperature_at(0), 1.0);
        assert_eq!(p.temperature_at(1), 1.0);
        assert_eq!(p.temperature_at(2), 0.1);
    }

    #[test]
    fn serde_round_trip() {
        let p = SearchParams { algorithm: Algorithm::Gumbel, visits: 32, ..Default::default() };
        let text = serde_json::to_string(&p).unwrap();
        assert!(text.contains("\"gumbel\""));
        assert_eq!(serde_json::from_str::<SearchParams>(&text).unwrap(), p);
    }
}
