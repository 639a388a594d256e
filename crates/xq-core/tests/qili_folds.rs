//! Cross-validation of the 棋例 judge on the rulebook cases (`data/qili/cases.json`), the
//! instrument for telling a rule that generalizes from one fitted to a case.
//!
//! The 57 cases are split into the three folds of `data/qili/folds.json` (ids sorted by
//! their FNV-1a hash, dealt round-robin). The judge's switchable readings
//! (`xq_core::qili::readings`) are what could be tuned: for each fold, the readings are
//! chosen on the other two folds — from a prior, a reading is flipped only when that
//! strictly raises the agreement on those two folds (single flips, then pairs) — and the
//! agreement is measured on the held fold. Two priors: strict (only the readings an
//! article states are on; a reading of an article for a shape it does not spell out is
//! adopted only if the training folds need it) and full (every reading the judge makes is
//! on, dropped only if the training folds prefer). A reading that only its own case
//! supports is dropped from the strict prior when that case is held out, and the held
//! figure shows it.
//!
//! `cargo test --release -p xq-core --test qili_folds -- --nocapture` prints, per fold and
//! in all, the labels and the verdicts under `cxa` and `cxa2020` that agree with the book,
//! held out and on every case with the judge's own readings.

mod common;

use common::{RulebookCase, load_rulebook_cases};
use std::collections::HashMap;
use xq_core::qili::readings::{self, Reading, Source};
use xq_core::qili::{Detail, IdleKind, MoveClass, MoveInfo, RuleSet, SideTally, decide, try_judge};

/// The book's label for a classified move: `exchange_offer` is an idle move with that detail.
fn label(info: &MoveInfo) -> &'static str {
    match (info.class, info.detail) {
        (MoveClass::Idle, Detail::Idle(IdleKind::ExchangeOffer)) => "exchange_offer",
        (c, _) => c.name(),
    }
}

/// Agreement with the book over some cases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Score {
    cases: usize,
    /// Cases agreeing in every label and both verdicts.
    whole: usize,
    labels: usize,
    label_total: usize,
    cxa: usize,
    cxa2020: usize,
}

impl Score {
    fn add(&mut self, other: Score) {
        self.cases += other.cases;
        self.whole += other.whole;
        self.labels += other.labels;
        self.label_total += other.label_total;
        self.cxa += other.cxa;
        self.cxa2020 += other.cxa2020;
    }

    /// What the tuning maximizes: labels and verdicts agreeing.
    fn total(&self) -> usize {
        self.labels + self.cxa + self.cxa2020
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cases {:>2}/{:<2} labels {:>3}/{:<3} cxa {:>2}/{:<2} cxa2020 {:>2}/{:<2}",
            self.whole,
            self.cases,
            self.labels,
            self.label_total,
            self.cxa,
            self.cases,
            self.cxa2020,
            self.cases
        )
    }
}

/// Judges one case under the switch word `word` (on this thread) and compares it with the
/// book: labels of every move from the first, verdicts of the cycle under both rule sets.
fn score_case(case: &RulebookCase, word: u64) -> Score {
    readings::set_word(word);
    let all = try_judge(&case.positions, &case.moves, 0, RuleSet::Cxa2020).expect("judgeable");
    readings::set_word(readings::DEFAULT);
    let labels = case.labels.iter().zip(&all.moves).filter(|(book, got)| *book == label(got)).count();
    let mut tally = [SideTally::default(); 2];
    for (i, info) in all.moves.iter().enumerate().skip(case.start) {
        tally[case.positions[i].side_to_move().index()].add(info);
    }
    let verdict = |rules| {
        readings::set_word(word);
        let v = decide(&tally[0], &tally[1], rules).result.verdict_name();
        readings::set_word(readings::DEFAULT);
        v
    };
    let cxa = usize::from(verdict(RuleSet::Cxa) == case.verdict_cxa);
    let cxa2020 = usize::from(verdict(RuleSet::Cxa2020) == case.verdict_cxa2020);
    Score {
        cases: 1,
        whole: usize::from(labels == case.labels.len() && cxa == 1 && cxa2020 == 1),
        labels,
        label_total: case.labels.len(),
        cxa,
        cxa2020,
    }
}

/// Scores of cases under switch words, each computed once.
struct Scorer<'a> {
    cases: &'a [RulebookCase],
    memo: HashMap<(usize, u64), Score>,
}

impl Scorer<'_> {
    fn score(&mut self, which: &[usize], word: u64) -> Score {
        let mut s = Score::default();
        for &i in which {
            let case = &self.cases[i];
            s.add(*self.memo.entry((i, word)).or_insert_with(|| score_case(case, word)));
        }
        s
    }

    /// The switch word tuned on the cases `which`: from the text's word, the single flip
    /// (or, when none helps, the pair of flips) that raises their agreement most, as long
    /// as one strictly raises it.
    fn tune(&mut self, which: &[usize], start: u64) -> u64 {
        let mut word = start;
        let mut best = self.score(which, word).total();
        loop {
            let mut found = None;
            for r in readings::ALL {
                let w = word ^ (1 << r.bit);
                let s = self.score(which, w).total();
                if s > best && found.is_none_or(|(_, b)| s > b) {
                    found = Some((w, s));
                }
            }
            if found.is_none() {
                for (i, a) in readings::ALL.iter().enumerate() {
                    for b in &readings::ALL[i + 1..] {
                        let w = word ^ (1 << a.bit) ^ (1 << b.bit);
                        let s = self.score(which, w).total();
                        if s > best && found.is_none_or(|(_, b)| s > b) {
                            found = Some((w, s));
                        }
                    }
                }
            }
            match found {
                Some((w, s)) => (word, best) = (w, s),
                None => return word,
            }
        }
    }
}

/// The prior of the tuning: the readings the text states on (strict), or also those read
/// from an article for shapes it does not spell out (`readings::Source::Reading`), whose
/// choice the rulebook cases decided.
fn prior(strict: bool) -> u64 {
    readings::ALL.iter().filter(|r| !strict || r.kind == Source::Text).fold(0, |w, r| w | (1 << r.bit))
}

/// The readings on which `word` differs from the judge's own, as `+name` / `-name`.
fn flips(word: u64) -> String {
    let names: Vec<String> = readings::ALL
        .iter()
        .filter(|r| (word ^ readings::DEFAULT) >> r.bit & 1 == 1)
        .map(|r: &Reading| format!("{}{}", if word >> r.bit & 1 == 1 { '+' } else { '-' }, r.name))
        .collect();
    if names.is_empty() { "none".to_string() } else { names.join(" ") }
}

/// The three folds of `data/qili/folds.json`, as indices into `cases`; checks that the file
/// follows its rule (ids sorted by FNV-1a, dealt round-robin).
fn folds(cases: &[RulebookCase]) -> [Vec<usize>; 3] {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/qili/folds.json");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("folds.json is readable")).expect("JSON");
    let fnv = |s: &str| {
        s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    };
    let mut order: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    order.sort_by_key(|id| fnv(id));
    let mut out: [Vec<usize>; 3] = Default::default();
    for (k, fold) in out.iter_mut().enumerate() {
        let listed: Vec<&str> = json["folds"][k]
            .as_array()
            .expect("three folds")
            .iter()
            .map(|v| v.as_str().expect("id"))
            .collect();
        let mut dealt: Vec<&str> = order.iter().copied().skip(k).step_by(3).collect();
        dealt.sort_unstable();
        assert_eq!(listed, dealt, "fold {} of folds.json follows the hash rule", k + 1);
        *fold = listed.iter().map(|id| cases.iter().position(|c| c.id == *id).expect("a case")).collect();
    }
    out
}

/// The figures this judge reaches, pinned as floors (docs/QILI.md, "Cross-validation"):
/// every case, the held folds from the strict prior, the held folds from the full prior.
const FLOOR_ALL: Score = Score { cases: 57, whole: 57, labels: 222, label_total: 222, cxa: 57, cxa2020: 57 };
const FLOOR_HELD_STRICT: Score =
    Score { cases: 57, whole: 49, labels: 215, label_total: 222, cxa: 52, cxa2020: 51 };
const FLOOR_HELD: Score = Score { cases: 57, whole: 57, labels: 222, label_total: 222, cxa: 57, cxa2020: 57 };

/// The held-out figure of the three folds, each tuned on the other two from `start`, with
/// a line per fold.
fn cross_validate(scorer: &mut Scorer<'_>, folds: &[Vec<usize>; 3], start: u64) -> (Score, Vec<String>) {
    let every: Vec<usize> = (0..scorer.cases.len()).collect();
    let mut held_total = Score::default();
    let mut lines = Vec::new();
    for (k, held) in folds.iter().enumerate() {
        let training: Vec<usize> = every.iter().copied().filter(|i| !held.contains(i)).collect();
        let word = scorer.tune(&training, start);
        let held_score = scorer.score(held, word);
        let own = scorer.score(held, readings::DEFAULT);
        held_total.add(held_score);
        let cases = scorer.cases;
        let missed: Vec<String> = held
            .iter()
            .filter(|&&i| scorer.score(&[i], word).whole == 0)
            .map(|&i| cases[i].id.clone())
            .collect();
        lines.push(format!(
            "  fold {}: held out {held_score}  (judge's readings: {own})\n           \
             tuned on the other folds: {}\n           held cases that disagree: {}",
            k + 1,
            flips(word),
            if missed.is_empty() { "none".to_string() } else { missed.join(" ") }
        ));
    }
    (held_total, lines)
}

fn at_least(what: &str, got: Score, floor: Score) {
    for (name, g, f) in [
        ("cases", got.whole, floor.whole),
        ("labels", got.labels, floor.labels),
        ("cxa", got.cxa, floor.cxa),
        ("cxa2020", got.cxa2020, floor.cxa2020),
    ] {
        assert!(g >= f, "{what}: {name} {g} below the floor {f}");
    }
}

#[test]
fn cross_validated_agreement_with_the_book() {
    let cases = load_rulebook_cases();
    let folds = folds(&cases);
    let mut scorer = Scorer { cases: &cases, memo: HashMap::new() };
    let every: Vec<usize> = (0..cases.len()).collect();
    let all = scorer.score(&every, readings::DEFAULT);
    println!("all cases, the judge's readings:        {all}");
    println!("all cases, the readings the text states: {}", scorer.score(&every, prior(true)));
    let (strict, strict_lines) = cross_validate(&mut scorer, &folds, prior(true));
    println!(
        "held out, tuned from the text's statements (readings of shapes adopted only when the training folds need them):"
    );
    for line in &strict_lines {
        println!("{line}");
    }
    println!("  three folds together: {strict}");
    let (held, lines) = cross_validate(&mut scorer, &folds, prior(false));
    println!(
        "held out, tuned from every reading the judge makes (dropped only when the training folds prefer):"
    );
    for line in &lines {
        println!("{line}");
    }
    println!("  three folds together: {held}");
    at_least("all cases", all, FLOOR_ALL);
    at_least("held out, strict prior", strict, FLOOR_HELD_STRICT);
    at_least("held out", held, FLOOR_HELD);
}

/// Dumps every judgement of 3,000 random games (the cycle of their last four moves, when
/// they end in one) under both rule sets to the file named by `QILI_DUMP`, one line per
/// game: `seed`, each move's class/detail/targets, the two verdicts. Compare two dumps to
/// count the verdicts a change of the judge moves.
#[test]
#[ignore]
fn dump_random_games() {
    let path = std::env::var("QILI_DUMP").expect("QILI_DUMP names the output file");
    let mut out = String::new();
    for seed in 0..3000u64 {
        let (positions, moves) = common::random_history(seed, 20 + (seed as usize * 37) % 100);
        let Some(start) = moves.len().checked_sub(4) else { continue };
        if positions[start] != positions[moves.len()] {
            continue;
        }
        let j = try_judge(&positions, &moves, start, RuleSet::Cxa).expect("judgeable");
        let k = try_judge(&positions, &moves, start, RuleSet::Cxa2020).expect("judgeable");
        let infos: Vec<String> = j
            .moves
            .iter()
            .map(|i| {
                let t: Vec<String> = i.targets.iter().map(|s| s.to_string()).collect();
                format!("{}/{}/{}", i.class.name(), i.detail.name().unwrap_or("-"), t.join(","))
            })
            .collect();
        out.push_str(&format!(
            "{seed} {} | cxa {} {} | cxa2020 {} {}\n",
            infos.join(" "),
            j.outcome.result.verdict_name(),
            j.outcome.reason,
            k.outcome.result.verdict_name(),
            k.outcome.reason
        ));
    }
    std::fs::write(path, out).expect("writable");
}

/// Diagnostic: for each reading, the cases whose agreement changes when it alone is flipped
/// from the judge's readings and from the text's.
#[test]
#[ignore]
fn what_each_reading_decides() {
    let cases = load_rulebook_cases();
    let mut scorer = Scorer { cases: &cases, memo: HashMap::new() };
    for (base_name, base) in [("judge", readings::DEFAULT), ("text", prior(true))] {
        for r in readings::ALL {
            let w = base ^ (1 << r.bit);
            let mut changed = Vec::new();
            for (i, case) in cases.iter().enumerate() {
                let (a, b) = (scorer.score(&[i], base), scorer.score(&[i], w));
                if a != b {
                    changed.push(format!(
                        "{}({:+})",
                        case.id.trim_start_matches("CXA2020-"),
                        b.total() as i64 - a.total() as i64
                    ));
                }
            }
            println!(
                "{base_name} {}{}: {}",
                if w >> r.bit & 1 == 1 { '+' } else { '-' },
                r.name,
                changed.join(" ")
            );
        }
    }
}
