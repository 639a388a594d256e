//! Seeded random games for the tests (xq-testkit's, one generator for the workspace).

pub use xq_testkit::game_positions as random_positions;
