//! Players that need no network: a ladder from random to a classical alpha-beta searcher.

mod alphabeta;
mod eval;
mod simple;

pub use alphabeta::{AlphaBetaConfig, AlphaBetaPlayer};
pub use simple::{GreedyPlayer, RandomPlayer};
