//! The event runner end to end: outputs that parse back, kill-and-resume with equal totals,
//! engine failures recorded as losses, and every shipped configuration parsing.

use std::path::Path;
use xq_core::{GameRules, Termination};
use xq_eval::pgn::parse_pgn;
use xq_eval::runner::{
    JOURNAL_FILE, JournalEntry, LADDER_PNG_FILE, LADDER_SVG_FILE, PGN_FILE, REPORT_JSON_FILE, REPORT_MD_FILE,
    RunConfig, RunError, RunOptions, RunSummary, run_event,
};

fn config(text: &str) -> RunConfig {
    RunConfig::from_toml(text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(config: &RunConfig, dir: &Path, max_games: Option<usize>) -> RunSummary {
    let options = RunOptions { max_games_this_run: max_games };
    run_event(config, dir, &options, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

fn journal(dir: &Path) -> Vec<JournalEntry> {
    let text = std::fs::read_to_string(dir.join(JOURNAL_FILE)).unwrap();
    let mut entries: Vec<JournalEntry> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    entries.sort_by_key(|e| e.record.game);
    // Wall time is the one thing a replay cannot repeat.
    for entry in &mut entries {
        for usage in &mut entry.usage {
            usage.seconds = 0.0;
        }
    }
    entries
}

/// The report without its wall-time figures, which differ from run to run.
fn untimed(report: &xq_eval::report::EventReport) -> xq_eval::report::EventReport {
    let mut report = report.clone();
    for speed in &mut report.speed {
        speed.seconds_per_move = None;
        speed.nodes_per_second = None;
    }
    for pair in &mut report.pairs {
        pair.seconds_per_move = None;
    }
    report
}

const TINY: &str = r#"
name = "tiny"
seed = 4
concurrency = 2
openings = 3
[format]
kind = "round_robin"
cycles = 2
[adjudication]
max_plies = 160
[[players]]
kind = "random"
name = "random"
[[players]]
kind = "greedy"
name = "greedy"
"#;

#[test]
fn a_tiny_event_writes_outputs_that_parse_back() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run(&config(TINY), dir.path(), None);
    assert!(summary.report.finished);
    assert_eq!(summary.report.games, 4);
    assert_eq!(summary.played, 4);
    for file in [JOURNAL_FILE, PGN_FILE, REPORT_JSON_FILE, REPORT_MD_FILE, LADDER_SVG_FILE, LADDER_PNG_FILE] {
        assert!(dir.path().join(file).is_file(), "{file} missing");
    }
    let entries = journal(dir.path());
    assert_eq!(entries.len(), 4);
    let pgn = std::fs::read_to_string(dir.path().join(PGN_FILE)).unwrap();
    let games = parse_pgn(&pgn).unwrap();
    assert_eq!(games.len(), 4);
    for (game, entry) in games.iter().zip(&entries) {
        let replayed = game.replay(GameRules::default()).unwrap();
        assert_eq!(replayed.moves().len(), entry.moves.len());
        assert_eq!(game.result, Some(entry.record.result));
        assert_eq!(game.tag("Red"), Some(entry.red.as_str()));
        assert_eq!(
            game.tag("Termination").map(str::to_owned),
            entry.record.termination().map(|t| t.to_string())
        );
        assert!(game.tag("Opening").is_some(), "book openings are named");
        // ICCS movetext, tagged so other tools read it, and no comments by default.
        assert_eq!(game.tag("Format"), Some("ICCS"));
        assert!(game.moves.iter().all(|m| m.comment.is_none()));
        // A game that ended on the board ends where xq-core says it does.
        if entry.record.termination() != Some(Termination::MaxLength) {
            assert!(replayed.outcome().is_some(), "game {} ended without an outcome", entry.record.game);
        }
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(REPORT_JSON_FILE)).unwrap()).unwrap();
    assert_eq!(report["games"], 4);
    let svg = std::fs::read_to_string(dir.path().join(LADDER_SVG_FILE)).unwrap();
    assert!(svg.contains("<svg") && svg.contains("greedy"));
    // Rerunning a finished event plays nothing and changes nothing.
    let again = run(&config(TINY), dir.path(), None);
    assert_eq!(again.played, 0);
    assert_eq!(again.report, summary.report);
}

const RESUMABLE: &str = r#"
name = "resume"
seed = 9
concurrency = 2
openings = 4
[format]
kind = "round_robin"
cycles = 1
[adjudication]
max_plies = 200
[[players]]
kind = "random"
name = "random"
[[players]]
kind = "greedy"
name = "greedy"
[[players]]
kind = "alphabeta"
name = "ab1"
depth = 1
[[players]]
kind = "mcts"
name = "mcts"
evaluator = "material"
visits = 16
"#;

#[test]
fn events_start_from_position_suites_in_every_format() {
    // Before: a book entry with its own position and no moves was refused ("has no moves").
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("endgames.epd");
    std::fs::write(
        &suite,
        "# rook against bare king, and a pawn race\n\
         3k5/9/9/9/9/9/9/9/9/R3K4 w - - id \"rook\";\n\
         3k5/9/9/9/2p6/9/6P2/9/9/4K4 w - - 0 1\n",
    )
    .unwrap();
    let json = dir.path().join("book.json");
    std::fs::write(
        &json,
        r#"{"openings": [{"id": "endgame", "name_zh": "", "pinyin": "", "name_en": "",
            "fen": "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"}]}"#,
    )
    .unwrap();
    let formats = [
        "kind = \"gauntlet\"\npairs = 2",
        "kind = \"round_robin\"\ncycles = 1",
        "kind = \"swiss\"\nrounds = 1\npaired = true",
        "kind = \"sprt\"\nmax_pairs = 2\n[format.sprt]\nelo0 = 0.0\nelo1 = 50.0\nalpha = 0.05\nbeta = 0.05\nmodel = \"logistic\"\nmethod = \"exact\"",
        "kind = \"gate\"\npairs = 2\n[format.threshold]\nkind = \"score\"\nmin = 0.5",
    ];
    let rook = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1";
    let pawns = "3k5/9/9/9/2p6/9/6P2/9/9/4K4 w - - 0 1";
    for (book, positions) in [(&suite, vec![rook, pawns]), (&json, vec![rook])] {
        for format in formats {
            let text = format!(
                "name = \"suite\"\nseed = 1\nbook = {:?}\n[format]\n{format}\n[adjudication]\nmax_plies = 40\n\
                 [[players]]\nkind = \"greedy\"\nname = \"greedy\"\n[[players]]\nkind = \"random\"\nname = \"random\"\n",
                book.to_str().unwrap()
            );
            let out = tempfile::tempdir().unwrap();
            let summary = run(&config(&text), out.path(), None);
            assert!(summary.played >= 2, "{format}");
            let pgn = std::fs::read_to_string(out.path().join(PGN_FILE)).unwrap();
            let games = parse_pgn(&pgn).unwrap();
            assert!(
                games.iter().all(|g| positions.contains(&g.start_fen())),
                "{format}: every game starts from a suite position"
            );
            for game in &games {
                game.replay(GameRules::default()).unwrap();
            }
        }
    }
    // A line that is not a position is an error naming the line.
    std::fs::write(&suite, "3k5/9/9/9/9/9/9/9/9/R3K4 w - -\nnot a position\n").unwrap();
    let text = format!(
        "name = \"bad\"\nbook = {:?}\n[format]\nkind = \"gauntlet\"\npairs = 1\n[[players]]\nkind = \"random\"\nname = \"a\"\n[[players]]\nkind = \"random\"\nname = \"b\"\n",
        suite.to_str().unwrap()
    );
    let dir2 = tempfile::tempdir().unwrap();
    let error = run_event(&config(&text), dir2.path(), &RunOptions { max_games_this_run: None }, &mut |_| {});
    assert!(error.is_err_and(|e| e.to_string().contains("line 2")));
}

#[test]
fn a_killed_event_resumes_to_the_same_totals() {
    let cfg = config(RESUMABLE);
    let whole = tempfile::tempdir().unwrap();
    let reference = run(&cfg, whole.path(), None);
    assert_eq!(reference.report.games, 12);

    // Stopped twice, then finished.
    let parts = tempfile::tempdir().unwrap();
    let first = run(&cfg, parts.path(), Some(3));
    assert_eq!((first.played, first.report.finished), (3, false));
    let second = run(&cfg, parts.path(), Some(4));
    assert_eq!((second.resumed, second.played), (3, 4));
    // Killed while writing a line: the half line is dropped and its game replayed.
    let path = parts.path().join(JOURNAL_FILE);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"record\":{\"game\":");
    std::fs::write(&path, text).unwrap();
    let last = run(&cfg, parts.path(), None);
    assert_eq!(last.resumed + last.played, 12);
    assert_eq!(untimed(&last.report), untimed(&reference.report));
    assert_eq!(journal(parts.path()), journal(whole.path()));
    assert_eq!(
        std::fs::read_to_string(parts.path().join(PGN_FILE)).unwrap(),
        std::fs::read_to_string(whole.path().join(PGN_FILE)).unwrap()
    );
}

fn sprt() -> String {
    xq_testkit::sprt_greedy_vs_random("sprt", 3, 60, 100, 200)
}

#[test]
fn an_sprt_stops_at_the_same_pair_when_resumed() {
    let cfg = config(&sprt());
    let whole = tempfile::tempdir().unwrap();
    let reference = run(&cfg, whole.path(), None);
    let sprt = reference.report.sprt.unwrap();
    assert_eq!(sprt.state, xq_eval::stats::SprtState::AcceptH1, "LLR {}", sprt.llr);
    assert!(reference.report.finished && reference.report.games < 120);
    let parts = tempfile::tempdir().unwrap();
    run(&cfg, parts.path(), Some(5));
    let rest = run(&cfg, parts.path(), None);
    assert_eq!(untimed(&rest.report), untimed(&reference.report));
}

#[test]
fn an_sprt_that_ran_out_of_pairs_extends_to_the_longer_event() {
    let longer = config(&xq_testkit::sprt_greedy_vs_random("sprt", 3, 60, 100, 200));
    let whole = tempfile::tempdir().unwrap();
    let reference = run(&longer, whole.path(), None);
    let decided_after = reference.report.games / 2;
    assert!(decided_after > 2, "the test decided after {decided_after} pairs");

    // Two pairs, undecided; then resumed with the longer event's maximum.
    let short = config(&xq_testkit::sprt_greedy_vs_random("sprt", 3, 2, 100, 200));
    let parts = tempfile::tempdir().unwrap();
    let first = run(&short, parts.path(), None);
    assert!(first.report.finished && first.report.games == 4);
    assert_eq!(first.report.sprt.unwrap().state, xq_eval::stats::SprtState::Continue);
    let rest = run(&longer, parts.path(), None);
    assert_eq!(rest.resumed, 4);
    assert_eq!(untimed(&rest.report), untimed(&reference.report));
    assert_eq!(journal(parts.path()), journal(whole.path()));
    let record = RunConfig::load(parts.path()).unwrap();
    assert_eq!(record.format, longer.format);

    // A maximum may not shrink below what the record says.
    let err = run_event(&short, parts.path(), &RunOptions::default(), &mut |_| {}).unwrap_err();
    assert!(matches!(err, RunError::JournalMismatch(_)) && err.to_string().contains("only grow"), "{err}");
}

#[test]
fn engine_failures_are_recorded_losses_and_the_event_goes_on() {
    // A UCI engine that handshakes, then dies on its first `go`; and one that cannot start.
    let script = r#"while read -r l; do case "$l" in uci) echo "id name shfake"; echo uciok;; isready) echo readyok;; go*) exit 3;; quit) exit 0;; esac; done"#;
    let text = format!(
        r#"
name = "engine failures"
seed = 1
concurrency = 2
openings = 2
[format]
kind = "gauntlet"
pairs = 2
[[players]]
kind = "greedy"
name = "greedy"
[[players]]
kind = "uci"
name = "crasher"
command = "sh"
args = ["-c", '{script}']
[[players]]
kind = "ucci"
name = "missing"
command = "/nonexistent/xq-no-such-engine"
"#
    );
    let dir = tempfile::tempdir().unwrap();
    let summary = run(&config(&text), dir.path(), None);
    assert!(summary.report.finished);
    assert_eq!(summary.report.games, 8);
    let entries = journal(dir.path());
    for e in &entries {
        assert_eq!(e.record.half_points_of(0), Some(2), "greedy wins game {}: {:?}", e.record.game, e.note);
        assert_eq!(e.record.termination(), Some(Termination::Forfeit));
        assert!(e.note.as_deref().is_some_and(|n| n.contains("forfeits")), "{:?}", e.note);
    }
    let greedy = summary.report.standings.iter().find(|s| s.name == "greedy").unwrap();
    assert_eq!(greedy.standing.points, 8.0);
    let crasher = summary.report.standings.iter().find(|s| s.name == "crasher").unwrap();
    assert_eq!(crasher.standing.violations, 4);
    let pgn = std::fs::read_to_string(dir.path().join(PGN_FILE)).unwrap();
    assert_eq!(parse_pgn(&pgn).unwrap().len(), 8);
}

#[test]
fn a_network_that_cannot_be_loaded_stops_the_event_before_a_game() {
    let text = r#"
name = "missing network"
seed = 1
openings = 2
[format]
kind = "gauntlet"
pairs = 1
[[players]]
kind = "greedy"
name = "greedy"
[[players]]
kind = "mcts"
name = "lost-net"
evaluator = { kind = "checkpoint", path = "/nonexistent/xq-model" }
visits = 8
"#;
    let dir = tempfile::tempdir().unwrap();
    let options = RunOptions { max_games_this_run: None };
    let err = run_event(&config(text), dir.path(), &options, &mut |_| {}).unwrap_err();
    assert!(matches!(err, RunError::Config(_)), "{err}");
    let message = err.to_string();
    assert!(message.contains("lost-net") && message.contains("/nonexistent/xq-model"), "{message}");
    assert!(!dir.path().join(JOURNAL_FILE).exists(), "no game was played");
}

#[test]
fn bad_configs_are_named_errors() {
    let unknown = TINY.replace("max_plies = 160", "max_plies = 160\nmax_pliez = 3");
    let err = RunConfig::from_toml(&unknown).unwrap_err().to_string();
    assert!(err.contains("max_pliez"), "{err}");
    let unknown_player_key = TINY.replace("kind = \"greedy\"", "kind = \"greedy\"\ndepth = 3");
    let err = RunConfig::from_toml(&unknown_player_key).unwrap_err().to_string();
    assert!(err.contains("depth"), "{err}");
    let twice = TINY.replace("name = \"greedy\"", "name = \"random\"");
    assert!(RunConfig::from_toml(&twice).unwrap_err().to_string().contains("twice"));
    let sprt_of_three = sprt().replace(
        "[[players]]\nkind = \"random\"",
        "[[players]]\nkind = \"random\"\nname = \"r2\"\n[[players]]\nkind = \"random\"",
    );
    assert!(RunConfig::from_toml(&sprt_of_three).is_err());
    assert!(matches!(RunConfig::from_toml("name = 3"), Err(RunError::Config(_))));
}

/// An event's directory holds its configuration as config.json: loading the directory, or the
/// file, gives the configuration it ran with (concurrency 1, the one setting a resume may
/// change), and the record is checked as strictly as TOML.
#[test]
fn an_event_record_loads_back_as_its_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let ran = config(TINY);
    run(&ran, dir.path(), Some(1));
    let expected = RunConfig { concurrency: 1, ..ran };
    assert_eq!(RunConfig::load(dir.path()).unwrap(), expected);
    let record = dir.path().join(xq_eval::runner::CONFIG_FILE);
    assert_eq!(RunConfig::load(&record).unwrap(), expected);

    let text = std::fs::read_to_string(&record).unwrap();
    let unknown = text.replacen("\"seed\"", "\"sed\": 1,\n  \"seed\"", 1);
    let err = RunConfig::from_json(&unknown).unwrap_err().to_string();
    assert!(err.contains("sed"), "{err}");
    let path = dir.path().join("edited.json");
    std::fs::write(&path, unknown).unwrap();
    let err = RunConfig::load(&path).unwrap_err().to_string();
    assert!(err.contains("edited.json") && err.contains("sed"), "{err}");
    let twice = text.replace("\"greedy\"", "\"random\"");
    assert!(RunConfig::from_json(&twice).unwrap_err().to_string().contains("twice"));
    assert!(matches!(RunConfig::load(&dir.path().join("missing")), Err(RunError::Io { .. })));
}

#[test]
fn a_journal_from_another_event_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    run(&config(TINY), dir.path(), Some(2));
    let other = TINY.replace("name = \"greedy\"", "name = \"greedy-2\"");
    let err = run_event(&config(&other), dir.path(), &RunOptions::default(), &mut |_| {}).unwrap_err();
    assert!(matches!(err, RunError::JournalMismatch(_)), "{err}");
    // Same names, different settings: refused too; a different concurrency is fine.
    let longer = TINY.replace("max_plies = 160", "max_plies = 170");
    let err = run_event(&config(&longer), dir.path(), &RunOptions::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("configuration differs"), "{err}");
    let serial = TINY.replace("concurrency = 2", "concurrency = 1");
    assert_eq!(run(&config(&serial), dir.path(), None).report.games, 4);
}

/// A checkpoint player's network is loaded once per event and shared by the game threads; the
/// games do not depend on how its positions were batched.
#[test]
fn checkpoint_players_share_one_network_and_games_do_not_depend_on_the_batching() {
    use burn::tensor::Device;
    use xq_nn::{ModelConfig, PolicyValueNet, save_checkpoint};
    let dir = tempfile::tempdir().unwrap();
    let mut model = ModelConfig::new(1, 16);
    model.seed = 2;
    let net = PolicyValueNet::new(&model, &Device::flex()).unwrap();
    save_checkpoint(&net, &dir.path().join("net"), 0, None).unwrap();
    let text = |concurrency: usize| {
        format!(
            r#"
name = "shared"
seed = 8
concurrency = {concurrency}
openings = 3
[format]
kind = "gauntlet"
pairs = 3
[adjudication]
max_plies = 40
[[players]]
kind = "mcts"
name = "net"
evaluator = {{ kind = "checkpoint", path = "{}" }}
visits = 12
[[players]]
kind = "random"
name = "random"
"#,
            dir.path().join("net").display()
        )
    };
    let (one, three) = (dir.path().join("one"), dir.path().join("three"));
    let single = run(&config(&text(1)), &one, None);
    let shared = run(&config(&text(3)), &three, None);
    assert_eq!(single.report.games, 6);
    let moves = |d: &Path| journal(d).into_iter().map(|e| (e.record.result, e.moves)).collect::<Vec<_>>();
    assert_eq!(moves(&one), moves(&three), "the same games at concurrency 1 and 3");
    for summary in [&single, &shared] {
        assert_eq!(summary.networks.len(), 1, "{:?}", summary.networks);
        let (name, stats) = &summary.networks[0];
        assert_eq!(name, "net");
        assert!(stats.positions > 0 && stats.batches > 0 && stats.requests >= stats.batches, "{stats:?}");
    }
    // One thread never has two requests waiting: every batch of the single run is one request.
    assert_eq!(single.networks[0].1.batches, single.networks[0].1.requests);
}

#[test]
fn a_network_held_to_a_clock_without_a_search_gathers_leaves_in_batches() {
    let text = |limits: &str, search: &str| {
        format!(
            r#"
name = "play time"
[format]
kind = "gauntlet"
pairs = 1
{limits}
[[players]]
kind = "mcts"
name = "net"
evaluator = {{ kind = "checkpoint", path = "models/none" }}
{search}
[[players]]
kind = "mcts"
name = "material"
evaluator = "material"
"#
        )
    };
    let leaves = |config: &RunConfig| {
        config.players.iter().map(|p| p.search().unwrap().leaves_per_step).collect::<Vec<_>>()
    };
    let timed = config(&text("[limits]\nmovetime_ms = 100", ""));
    assert_eq!(leaves(&timed), [xq_eval::runner::TIMED_NETWORK_LEAVES_PER_STEP, 1]);
    // The record names the search it played with.
    let record = RunConfig::from_json(&serde_json::to_string(&timed).unwrap()).unwrap();
    assert_eq!(leaves(&record), leaves(&timed));
    // Visits, or a search of its own, keep one leaf a step.
    assert_eq!(leaves(&config(&text("[limits]\nvisits = 64", ""))), [1, 1]);
    assert_eq!(leaves(&config(&text("[limits]\nmovetime_ms = 100", "search = { visits = 50 }"))), [1, 1]);
}
