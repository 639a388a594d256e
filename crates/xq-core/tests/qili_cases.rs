//! Every case of `data/qili/cases.json` (the 2020 rulebook's illustrated repetition cases):
//! each move's class is compared with the book's label and the verdict with the book's,
//! under both rule sets, and a per-case summary of the differences is printed.
//!
//! The judge reproduces every case (docs/QILI.md, "Status against the rulebook's cases"):
//! the test fails on any label or verdict that differs from the book's, and when the file
//! holds fewer cases or labels than it does (a truncated copy).

mod common;

use common::load_rulebook_cases;
use xq_core::qili::{Detail, IdleKind, MoveClass, RuleSet, try_judge};

/// Cases in the file.
const CASES: usize = 57;
/// Move labels in the file.
const LABELS: usize = 222;

/// The book's label for a classified move: `exchange_offer` is an idle move with that detail.
fn label(class: MoveClass, detail: Detail) -> &'static str {
    match (class, detail) {
        (MoveClass::Idle, Detail::Idle(IdleKind::ExchangeOffer)) => "exchange_offer",
        (c, _) => c.name(),
    }
}

#[test]
fn every_rulebook_case_is_judged_as_the_book_does() {
    let cases = load_rulebook_cases();
    assert!(cases.len() >= 50, "the case file holds the rulebook's cases");
    let mut failures = Vec::new();
    let (mut moves_total, mut moves_agreeing, mut verdicts_agreeing) = (0, 0, 0);
    for case in &cases {
        // Labels: every move of the case, classified from the start under the book's edition.
        let all = try_judge(&case.positions, &case.moves, 0, RuleSet::Cxa2020).expect("judgeable");
        let got: Vec<String> = all
            .moves
            .iter()
            .map(|i| {
                let targets: Vec<String> = i.targets.iter().map(|s| s.to_string()).collect();
                if targets.is_empty() {
                    label(i.class, i.detail).to_string()
                } else {
                    format!("{}[{}]", label(i.class, i.detail), targets.join(","))
                }
            })
            .collect();
        let plain: Vec<&str> = all.moves.iter().map(|i| label(i.class, i.detail)).collect();
        // The labels may cover a prefix of the moves (figure 29 labels the six moves from
        // 车一平二; its seventh move only closes the cycle).
        let labels_ok = plain.len() >= case.labels.len() && plain[..case.labels.len()] == case.labels[..];
        moves_total += case.labels.len();
        moves_agreeing += case.labels.iter().zip(&plain).filter(|(a, b)| a == b).count();
        let cxa = try_judge(&case.positions, &case.moves, case.start, RuleSet::Cxa).expect("judgeable");
        let cxa2020 =
            try_judge(&case.positions, &case.moves, case.start, RuleSet::Cxa2020).expect("judgeable");
        let v_cxa = cxa.outcome.result.verdict_name();
        let v_2020 = cxa2020.outcome.result.verdict_name();
        verdicts_agreeing +=
            usize::from(v_cxa == case.verdict_cxa) + usize::from(v_2020 == case.verdict_cxa2020);
        if !labels_ok || v_cxa != case.verdict_cxa || v_2020 != case.verdict_cxa2020 {
            failures.push(format!(
                "{}: labels book {:?} got {:?}; cxa book {} got {} ({}); cxa2020 book {} got {} ({})",
                case.id,
                case.labels,
                got,
                case.verdict_cxa,
                v_cxa,
                cxa.outcome.reason,
                case.verdict_cxa2020,
                v_2020,
                cxa2020.outcome.reason
            ));
        }
    }
    let agreeing = cases.len() - failures.len();
    eprintln!(
        "{agreeing} of {} cases agree in full; {moves_agreeing} of {moves_total} labels; \
         {verdicts_agreeing} of {} verdicts\n{}",
        cases.len(),
        2 * cases.len(),
        failures.join("\n")
    );
    assert_eq!(cases.len(), CASES, "the case file holds {} cases", cases.len());
    assert_eq!(moves_total, LABELS, "the case file holds {moves_total} labels");
    assert!(failures.is_empty(), "{} of {CASES} cases disagree with the book", failures.len());
    assert_eq!(moves_agreeing, LABELS);
    assert_eq!(verdicts_agreeing, 2 * CASES);
}
