//! Statistics against reference values computed independently by
//! `scripts/eval_stats_reference.py` (Python standard library: `math.erf`, Newton's method for
//! the MLE instead of the crate's bisection). The script's output is quoted next to each value.

use xq_eval::stats::{EloModel, LlrMethod, Pentanomial, SprtConfig, SprtState, Wdl, score_to_elo, sprt};

fn assert_close(actual: f64, expected: f64, tol: f64, what: &str) {
    assert!((actual - expected).abs() <= tol, "{what}: {actual} vs reference {expected}");
}

#[test]
fn seventy_five_percent_is_190_85_elo() {
    assert_close(score_to_elo(0.75), 190.85, 0.005, "Elo(0.75)");
}

#[test]
fn trinomial_reference() {
    // trinomial (30, 40, 10) {'score': 0.625, 'elo': 88.73949984654251,
    //   'elo_lo': 36.63632208916624, 'elo_hi': 145.10336548974388, 'nelo': 131.31830798670234,
    //   'los': 0.9992172988709987}
    let e = Wdl::new(30, 40, 10).estimate().unwrap();
    assert_close(e.score, 0.625, 1e-12, "score");
    assert_close(e.elo.value, 88.73949984654251, 1e-9, "elo");
    // profile interval (34.10868879625674, 142.55957473725317); the normal one was (36.6, 145.1)
    assert_close(e.elo.lower, 34.10868879625674, 1e-6, "elo lower");
    assert_close(e.elo.upper, 142.55957473725317, 1e-6, "elo upper");
    assert_close(e.nelo.value, 131.31830798670234, 1e-9, "nelo");
    assert_close(e.los, 0.9992172988709987, 1e-12, "los");
    // trinomial (100, 250, 80) {'elo': 16.171462822243296, 'elo_lo': -5.032221628687415,
    //   'elo_hi': 37.49636266477788, 'nelo': 25.04141878967032, 'los': 0.9319814359429281}
    let e = Wdl::new(100, 250, 80).estimate().unwrap();
    assert_close(e.elo.value, 16.171462822243296, 1e-9, "elo");
    // profile interval (-5.127302759209727, 37.456087397665264)
    assert_close(e.elo.lower, -5.127302759209727, 1e-6, "elo lower");
    assert_close(e.elo.upper, 37.456087397665264, 1e-6, "elo upper");
    assert_close(e.nelo.value, 25.04141878967032, 1e-9, "nelo");
    assert_close(e.los, 0.9319814359429281, 1e-12, "los");
    // trinomial (7, 3, 0) {'elo': 301.3310666634446, 'elo_hi': 837.650896406274,
    //   'los': 0.9959245142032487}
    let e = Wdl::new(7, 3, 0).estimate().unwrap();
    assert_close(e.elo.value, 301.3310666634446, 1e-9, "elo");
    // profile interval (72.99167795769785, 488.80213854030285): the normal interval's upper end
    // was 837.65, its score 0.85 + 0.18 reaching within 0.01 of a perfect score.
    assert_close(e.elo.lower, 72.99167795769785, 1e-6, "elo lower");
    assert_close(e.elo.upper, 488.80213854030285, 1e-6, "elo upper");
    assert_close(e.los, 0.9959245142032487, 1e-12, "los");
}

#[test]
fn pentanomial_reference() {
    // pentanomial [10, 50, 100, 60, 15] {'score': 0.5212765957446809, 'elo': 14.793426501268009,
    //   'elo_lo': -6.126763845125932, 'elo_hi': 35.82150669957215, 'nelo': 22.20817893924399,
    //   'nelo_lo': -9.202220578278096, 'los': 0.9170896842396405}
    let e = Pentanomial::new([10, 50, 100, 60, 15]).estimate().unwrap();
    assert_close(e.score, 0.5212765957446809, 1e-12, "score");
    assert_close(e.elo.value, 14.793426501268009, 1e-9, "elo");
    // profile interval (-6.38073044392542, 35.91200120167477)
    assert_close(e.elo.lower, -6.38073044392542, 1e-6, "elo lower");
    assert_close(e.elo.upper, 35.91200120167477, 1e-6, "elo upper");
    assert_close(e.nelo.value, 22.20817893924399, 1e-9, "nelo");
    assert_close(e.nelo.lower, -9.202220578278096, 1e-9, "nelo lower");
    assert_close(e.los, 0.9170896842396405, 1e-12, "los");
    // pentanomial [1023, 4990, 9211, 5183, 1193] {'elo': 4.286864918166324,
    //   'elo_lo': 2.112531833899045, 'elo_hi': 6.461533835961314, 'nelo': 6.459671803108526,
    //   'nelo_lo': 3.18339553571036, 'los': 0.9999443104890892}
    let e = Pentanomial::new([1023, 4990, 9211, 5183, 1193]).estimate().unwrap();
    assert_close(e.elo.value, 4.286864918166324, 1e-9, "elo");
    // profile interval (2.1122139748813153, 6.461610732996401)
    assert_close(e.elo.lower, 2.1122139748813153, 1e-6, "elo lower");
    assert_close(e.elo.upper, 6.461610732996401, 1e-6, "elo upper");
    assert_close(e.nelo.value, 6.459671803108526, 1e-9, "nelo");
    assert_close(e.nelo.lower, 3.18339553571036, 1e-9, "nelo lower");
    assert_close(e.los, 0.9999443104890892, 1e-12, "los");
}

#[test]
fn profile_likelihood_reference_near_a_perfect_score() {
    // pentanomial [0, 0, 2, 1, 7]   profile interval (89.59318412959698, 521.8652575199078)
    // pentanomial [0, 0, 0, 2, 8]   profile interval (140.6293438962852, 696.2536748522227)
    let e = Pentanomial::new([0, 0, 2, 1, 7]).estimate().unwrap();
    assert_close(e.elo.lower, 89.59318412959698, 1e-6, "elo lower");
    assert_close(e.elo.upper, 521.8652575199078, 1e-6, "elo upper");
    let e = Pentanomial::new([0, 0, 0, 2, 8]).estimate().unwrap();
    assert_close(e.elo.lower, 140.6293438962852, 1e-6, "elo lower");
    assert_close(e.elo.upper, 696.2536748522227, 1e-6, "elo upper");
}

fn cfg(elo0: f64, elo1: f64, model: EloModel, method: LlrMethod) -> SprtConfig {
    SprtConfig { elo0, elo1, alpha: 0.05, beta: 0.05, model, method }
}

#[test]
fn gsprt_reference() {
    use EloModel::{Logistic, Normalized};
    use LlrMethod::{Approximate, Exact};
    // (counts, model, elo0, elo1, approximate LLR, exact LLR) from the script's "sprt" lines.
    let cases: [([u64; 5], EloModel, f64, f64, f64, f64); 9] = [
        ([10, 50, 100, 60, 15], Normalized, 0.0, 2.0, 0.1651515431468511, 0.1640169374756284),
        ([10, 50, 100, 60, 15], Normalized, 0.0, 5.0, 0.3836769971805089, 0.3813367035339496),
        ([10, 50, 100, 60, 15], Logistic, 0.0, 5.0, 0.5395921809180452, 0.5366012793410926),
        ([1023, 4990, 9211, 5183, 1193], Normalized, 0.0, 2.0, 3.9077941882589773, 3.9070692629149772),
        ([1023, 4990, 9211, 5183, 1193], Normalized, 0.0, 5.0, 7.08539955221778, 7.084593921534183),
        ([1023, 4990, 9211, 5183, 1193], Logistic, 0.0, 5.0, 7.260079146323396, 7.2592871825697145),
        ([3, 20, 50, 30, 7], Normalized, 0.0, 2.0, 0.1610739904585978, 0.15602050410591017),
        ([3, 20, 50, 30, 7], Normalized, 0.0, 5.0, 0.38901602008042196, 0.37755861358422316),
        ([3, 20, 50, 30, 7], Logistic, 0.0, 5.0, 0.5970255571019153, 0.5804923112379701),
    ];
    for (counts, model, elo0, elo1, approx, exact) in cases {
        let p = Pentanomial::new(counts);
        let a = sprt(&p, &cfg(elo0, elo1, model, Approximate)).unwrap();
        assert_close(a.llr, approx, 1e-9, &format!("approx LLR {counts:?} {model:?} [{elo0},{elo1}]"));
        let e = sprt(&p, &cfg(elo0, elo1, model, Exact)).unwrap();
        assert_close(e.llr, exact, 1e-9, &format!("exact LLR {counts:?} {model:?} [{elo0},{elo1}]"));
    }
    // 7.08 > ln(0.95/0.05) = 2.944: H1 accepted; the small sample continues.
    let big =
        sprt(&Pentanomial::new([1023, 4990, 9211, 5183, 1193]), &cfg(0.0, 5.0, Normalized, Approximate));
    assert_eq!(big.unwrap().state, SprtState::AcceptH1);
    let flipped = Pentanomial::new([1023, 4990, 9211, 5183, 1193]).flipped();
    let r = sprt(&flipped, &cfg(0.0, 5.0, Normalized, Approximate)).unwrap();
    assert_eq!(r.state, SprtState::AcceptH0);
}
