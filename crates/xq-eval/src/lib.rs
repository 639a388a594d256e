//! # xq-eval: match evaluation without a game runner
//!
//! * [`stats`]: W/D/L and pentanomial counts, Elo with 95% intervals, normalized Elo, LOS, GSPRT.
//! * [`record`]: serializable game records (one JSON line per finished game) and the tallies a
//!   set of records gives.
//! * [`events`]: event formats (gauntlet, round robin, Swiss, head-to-head SPRT, gate) that issue
//!   a schedule of games and take their results back.
//! * [`standings`]: scoring (第14条) and ranking with the rulebook's tie-breaks (第15条).
//! * [`openings`]: the seeded, paired opening order of an event (the book is xq-play's).
//! * [`pgn`]: a Xiangqi PGN writer and parser.
//! * [`report`]: a JSON event report and its Markdown summary; [`plot`]: SVG charts.
//! * [`rating`]: maximum-likelihood ratings of many players on one scale (Ordo's model), and
//!   one player placed against anchors held fixed.
//! * [`scale`]: the calibrated strength scale: calibrating its anchors, its versioned file,
//!   placing a player on it (`xq eval calibrate`, `xq eval rate`).
//! * [`runner`]: runs an event from a TOML configuration with real players (xq-play), on many
//!   threads, with a resumable journal and every output file.

pub mod events;
pub mod openings;
pub mod pgn;
pub mod plot;
pub mod rating;
pub mod record;
pub mod report;
pub mod runner;
pub mod scale;
pub mod standings;
pub mod stats;
