//! The evaluator contract: a batch of positions in, a WDL value and move priors for each out.
//!
//! Buffers are owned by the caller and reused from batch to batch ([`EvalBatch::clear`],
//! [`EvalResults::prepare`]), so once they have grown to the largest batch, evaluating
//! allocates nothing.

use thiserror::Error;
use xq_core::{Color, HistoryFeatures, Move, PieceKind, Position};

/// Win, draw and loss probabilities from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Wdl {
    /// Probability that the side to move wins.
    pub win: f32,
    /// Probability of a draw.
    pub draw: f32,
    /// Probability that the side to move loses.
    pub loss: f32,
}

impl Wdl {
    /// A certain win for the side to move.
    pub const WIN: Wdl = Wdl { win: 1.0, draw: 0.0, loss: 0.0 };
    /// A certain draw.
    pub const DRAW: Wdl = Wdl { win: 0.0, draw: 1.0, loss: 0.0 };
    /// A certain loss for the side to move.
    pub const LOSS: Wdl = Wdl { win: 0.0, draw: 0.0, loss: 1.0 };

    /// Builds a WDL triple.
    pub const fn new(win: f32, draw: f32, loss: f32) -> Wdl {
        Wdl { win, draw, loss }
    }

    /// The expected score in [-1, 1]: `win - loss`.
    #[inline]
    pub fn value(self) -> f32 {
        self.win - self.loss
    }

    /// The same outcome seen by the other side (win and loss swapped).
    #[inline]
    pub fn flip(self) -> Wdl {
        Wdl { win: self.loss, draw: self.draw, loss: self.win }
    }

    /// A triple with expected score `value` (clamped to [-1, 1]) and draw probability `draw`,
    /// the draw shrunk where needed so that all three stay in [0, 1].
    pub fn from_value(value: f32, draw: f32) -> Wdl {
        let v = value.clamp(-1.0, 1.0);
        let d = draw.clamp(0.0, 1.0 - v.abs());
        Wdl { win: (1.0 + v - d) * 0.5, draw: d, loss: (1.0 - v - d) * 0.5 }
    }
}

/// One position of a batch, as the evaluator sees it.
#[derive(Clone, Copy, Debug)]
pub struct EvalRequest<'a> {
    /// The position; priors are for its side to move.
    pub position: &'a Position,
    /// History features of the position on its line.
    pub history: HistoryFeatures,
    /// The legal moves, in the order the priors must be written.
    pub moves: &'a [Move],
}

/// A batch of positions to evaluate. Reuse one batch across steps: [`EvalBatch::clear`] keeps
/// the buffers.
#[derive(Clone, Debug, Default)]
pub struct EvalBatch {
    positions: Vec<Position>,
    history: Vec<HistoryFeatures>,
    /// `moves[move_starts[i]..move_starts[i + 1]]` are the legal moves of entry `i`.
    move_starts: Vec<u32>,
    moves: Vec<Move>,
}

impl EvalBatch {
    /// An empty batch.
    pub fn new() -> EvalBatch {
        EvalBatch::default()
    }

    /// An empty batch with room for `positions` entries of `moves_per_position` moves.
    pub fn with_capacity(positions: usize, moves_per_position: usize) -> EvalBatch {
        let mut move_starts = Vec::with_capacity(positions + 1);
        move_starts.push(0);
        EvalBatch {
            positions: Vec::with_capacity(positions),
            history: Vec::with_capacity(positions),
            move_starts,
            moves: Vec::with_capacity(positions * moves_per_position),
        }
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the batch has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Removes every entry, keeping the buffers.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.history.clear();
        self.move_starts.clear();
        self.moves.clear();
    }

    /// Appends an entry and returns its index.
    pub fn push(&mut self, position: &Position, history: HistoryFeatures, moves: &[Move]) -> usize {
        if self.move_starts.is_empty() {
            self.move_starts.push(0);
        }
        self.positions.push(*position);
        self.history.push(history);
        self.moves.extend_from_slice(moves);
        self.move_starts.push(self.moves.len() as u32);
        self.positions.len() - 1
    }

    /// Appends every entry of `other`, reusing this batch's buffers.
    pub fn append(&mut self, other: &EvalBatch) {
        if self.move_starts.is_empty() {
            self.move_starts.push(0);
        }
        let base = self.moves.len() as u32;
        self.positions.extend_from_slice(&other.positions);
        self.history.extend_from_slice(&other.history);
        self.moves.extend_from_slice(&other.moves);
        self.move_starts.extend(other.move_starts.iter().skip(1).map(|&start| start + base));
    }

    /// Entry `index`. Panics when out of range, like slice indexing.
    pub fn get(&self, index: usize) -> EvalRequest<'_> {
        let (a, b) = (self.move_starts[index] as usize, self.move_starts[index + 1] as usize);
        EvalRequest {
            position: &self.positions[index],
            history: self.history[index],
            moves: &self.moves[a..b],
        }
    }

    /// Every entry in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EvalRequest<'_>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Total number of moves over all entries (the length of the flat prior buffer).
    pub fn total_moves(&self) -> usize {
        self.moves.len()
    }
}

/// What an evaluator returns for a batch: one [`Wdl`] per entry and one prior per legal move,
/// in the order of the entry's move list. Priors need not sum to one (the search normalises
/// them) but must be finite and non-negative with a positive sum.
#[derive(Clone, Debug, Default)]
pub struct EvalResults {
    wdl: Vec<Wdl>,
    move_starts: Vec<u32>,
    priors: Vec<f32>,
}

impl EvalResults {
    /// Empty results.
    pub fn new() -> EvalResults {
        EvalResults::default()
    }

    /// Sizes the results for `batch`: every WDL a draw and every prior zero, so an evaluator
    /// that forgets an entry is caught by the search's checks.
    pub fn prepare(&mut self, batch: &EvalBatch) {
        self.wdl.clear();
        self.wdl.resize(batch.len(), Wdl::default());
        self.move_starts.clear();
        self.move_starts.extend_from_slice(&batch.move_starts);
        if self.move_starts.is_empty() {
            self.move_starts.push(0);
        }
        self.priors.clear();
        self.priors.resize(batch.total_moves(), 0.0);
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.wdl.len()
    }

    /// Whether there are no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.wdl.is_empty()
    }

    /// Fills these results (already [`prepared`](Self::prepare) for a batch of `n` entries)
    /// with entries `first..first + n` of `source`, whose batch held this one's entries there.
    pub(crate) fn copy_range_from(&mut self, source: &EvalResults, first: usize) {
        let n = self.wdl.len();
        if n == 0 {
            return;
        }
        self.wdl.copy_from_slice(&source.wdl[first..first + n]);
        let start = source.move_starts[first] as usize;
        let len = self.priors.len();
        self.priors.copy_from_slice(&source.priors[start..start + len]);
    }

    /// The WDL of entry `index`.
    #[inline]
    pub fn wdl(&self, index: usize) -> Wdl {
        self.wdl[index]
    }

    /// The priors of entry `index`, aligned with its moves.
    #[inline]
    pub fn priors(&self, index: usize) -> &[f32] {
        let (a, b) = (self.move_starts[index] as usize, self.move_starts[index + 1] as usize);
        &self.priors[a..b]
    }

    /// The WDL and the prior slice of entry `index`, for the evaluator to fill.
    #[inline]
    pub fn slot_mut(&mut self, index: usize) -> (&mut Wdl, &mut [f32]) {
        let (a, b) = (self.move_starts[index] as usize, self.move_starts[index + 1] as usize);
        (&mut self.wdl[index], &mut self.priors[a..b])
    }

    /// The whole flat prior buffer (entry after entry), for evaluators that fill it in one go.
    pub fn priors_flat_mut(&mut self) -> &mut [f32] {
        &mut self.priors
    }

    /// All WDL values, one per entry.
    pub fn wdl_mut(&mut self) -> &mut [Wdl] {
        &mut self.wdl
    }
}

/// Why an evaluator could not evaluate a batch.
#[derive(Debug, Error)]
pub enum EvalError {
    /// The backend (a network, a remote service) failed.
    #[error("evaluator backend failed: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The evaluator was given something it cannot handle.
    #[error("evaluator cannot handle the request: {0}")]
    Unsupported(String),
}

/// Evaluates batches of positions: a WDL value for the side to move and priors over the
/// legal moves.
///
/// Implementations must be `Send` so a driver thread can own them. The search never calls
/// [`Evaluator::evaluate`] itself: drivers gather leaves from one or many searches into an
/// [`EvalBatch`], call [`evaluate_batch`], and hand the [`EvalResults`] back.
pub trait Evaluator: Send {
    /// The batch size this evaluator runs best at (a network's compiled batch); drivers use
    /// it to decide how many leaves to gather before calling.
    fn preferred_batch_size(&self) -> usize {
        1
    }

    /// Fills `out` (already sized for `batch` by [`EvalResults::prepare`]) with a WDL and
    /// priors for every entry.
    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError>;
}

impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn preferred_batch_size(&self) -> usize {
        (**self).preferred_batch_size()
    }

    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError> {
        (**self).evaluate(batch, out)
    }
}

/// Prepares `out` for `batch` and runs the evaluator on it.
pub fn evaluate_batch<E: Evaluator + ?Sized>(
    evaluator: &mut E,
    batch: &EvalBatch,
    out: &mut EvalResults,
) -> Result<(), EvalError> {
    out.prepare(batch);
    if batch.is_empty() {
        return Ok(());
    }
    evaluator.evaluate(batch, out)
}

/// Equal priors over the legal moves and a certain draw, `Wdl::DRAW`, for every position.
///
/// With it the search is driven by terminal positions alone (mates, repetitions), which is
/// what tests and benchmarks of the tree need.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn preferred_batch_size(&self) -> usize {
        64
    }

    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError> {
        for i in 0..batch.len() {
            let (wdl, priors) = out.slot_mut(i);
            *wdl = Wdl::DRAW;
            priors.fill(1.0);
        }
        Ok(())
    }
}

/// The evaluators built into xq, named in configs (`"uniform"`, `"material"`): what plays
/// before any network exists, and the fixed baselines networks are measured against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinEvaluator {
    /// [`UniformEvaluator`]: equal priors, every position a draw, so only terminal positions
    /// (mates, repetitions, limits) guide the search.
    Uniform,
    /// [`MaterialEvaluator`]: material balance as value, priors favouring captures.
    Material,
}

impl BuiltinEvaluator {
    /// Its name in configs, and the model id of the data it makes.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinEvaluator::Uniform => "uniform",
            BuiltinEvaluator::Material => "material",
        }
    }

    /// A new evaluator of this kind with its default settings.
    pub fn build(self) -> Box<dyn Evaluator + Send> {
        match self {
            BuiltinEvaluator::Uniform => Box::new(UniformEvaluator),
            BuiltinEvaluator::Material => Box::new(MaterialEvaluator::default()),
        }
    }
}

/// A cheap heuristic evaluator: material balance squashed to a WDL, priors favouring
/// captures by the value of the victim.
///
/// Piece values (in pawns): rook 9, cannon 4.5, horse 4, advisor and elephant 2, pawn 1 before
/// the river and 2 after it. With `d` the balance for the side to move, the value is
/// `tanh(d / value_scale)` and the draw probability `draw_rate · (1 − |value|)`. A move's
/// prior weight is `1 + victim value` (quiet moves weigh 1), normalised by the search.
#[derive(Clone, Copy, Debug)]
pub struct MaterialEvaluator {
    /// Pawns of material advantage that give a value of tanh(1) ≈ 0.76.
    pub value_scale: f32,
    /// Draw probability of a level position.
    pub draw_rate: f32,
}

impl Default for MaterialEvaluator {
    fn default() -> Self {
        MaterialEvaluator { value_scale: 8.0, draw_rate: 0.3 }
    }
}

impl MaterialEvaluator {
    /// Value of a piece code (see [`xq_core::Piece::code`]) standing on square index `square`.
    fn piece_value(code: u8, square: usize) -> f32 {
        let Some(piece) = xq_core::Piece::from_code(code) else { return 0.0 };
        match piece.kind {
            PieceKind::King => 0.0,
            PieceKind::Rook => 9.0,
            PieceKind::Cannon => 4.5,
            PieceKind::Horse => 4.0,
            PieceKind::Advisor | PieceKind::Elephant => 2.0,
            PieceKind::Pawn => {
                let rank = square / 9;
                let crossed = match piece.color {
                    Color::Red => rank >= 5,
                    Color::Black => rank <= 4,
                };
                if crossed { 2.0 } else { 1.0 }
            }
        }
    }

    /// Material balance in pawns for the side to move.
    pub fn balance(position: &Position) -> f32 {
        let me = position.side_to_move();
        let mut balance = 0.0;
        for (square, &code) in position.board_codes().iter().enumerate() {
            if code == 0 {
                continue;
            }
            let v = Self::piece_value(code, square);
            let red = code <= 7;
            balance += if red == (me == Color::Red) { v } else { -v };
        }
        balance
    }
}

impl Evaluator for MaterialEvaluator {
    fn preferred_batch_size(&self) -> usize {
        64
    }

    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError> {
        for (i, request) in batch.iter().enumerate() {
            let value = (Self::balance(request.position) / self.value_scale).tanh();
            let (wdl, priors) = out.slot_mut(i);
            *wdl = Wdl::from_value(value, self.draw_rate * (1.0 - value.abs()));
            let board = request.position.board_codes();
            for (prior, m) in priors.iter_mut().zip(request.moves) {
                let to = m.to().index();
                *prior = 1.0 + Self::piece_value(board[to], to);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_and_results_line_up() {
        let start = Position::startpos();
        let moves = start.legal_moves();
        let mut batch = EvalBatch::new();
        batch.push(&start, HistoryFeatures::default(), &moves);
        batch.push(&start, HistoryFeatures { earlier_occurrences: 1, ..Default::default() }, &moves[..3]);
        let mut out = EvalResults::new();
        evaluate_batch(&mut MaterialEvaluator::default(), &batch, &mut out).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out.priors(0).len(), 44);
        assert_eq!(out.priors(1).len(), 3);
        assert_eq!(batch.get(1).history.earlier_occurrences, 1);
        // Level material: value 0, draws as configured.
        assert!(out.wdl(0).value().abs() < 1e-6);
        assert!((out.wdl(0).draw - 0.3).abs() < 1e-6);
        // The cannons taking the horses (b2b9, h2h9) are the only captures at the start.
        let heavy: Vec<String> =
            (0..44).filter(|&i| out.priors(0)[i] > 1.0).map(|i| moves[i].iccs()).collect();
        assert_eq!(heavy, vec!["b2b9", "h2h9"]);
        assert_eq!(out.priors(0)[(0..44).find(|&i| moves[i].iccs() == "h2h9").unwrap()], 5.0);
        batch.clear();
        assert!(batch.is_empty());
    }

    #[test]
    fn material_value_is_for_the_side_to_move() {
        // Red has an extra rook.
        let red = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R w").unwrap();
        let black = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K3R b").unwrap();
        assert_eq!(MaterialEvaluator::balance(&red), 9.0);
        assert_eq!(MaterialEvaluator::balance(&black), -9.0);
        let mut batch = EvalBatch::new();
        batch.push(&red, HistoryFeatures::default(), &red.legal_moves());
        batch.push(&black, HistoryFeatures::default(), &black.legal_moves());
        let mut out = EvalResults::new();
        evaluate_batch(&mut MaterialEvaluator::default(), &batch, &mut out).unwrap();
        assert!(out.wdl(0).value() > 0.5);
        assert!((out.wdl(0).value() + out.wdl(1).value()).abs() < 1e-6);
        evaluate_batch(&mut UniformEvaluator, &batch, &mut out).unwrap();
        assert_eq!(out.wdl(1), Wdl::DRAW);
        assert!(out.priors(1).iter().all(|&p| p == 1.0));
    }

    #[test]
    fn wdl_from_value_stays_a_distribution() {
        for v in [-1.0f32, -0.5, 0.0, 0.3, 1.0, 2.0] {
            for d in [0.0f32, 0.5, 1.0] {
                let w = Wdl::from_value(v, d);
                assert!((w.win + w.draw + w.loss - 1.0).abs() < 1e-6);
                assert!(w.win >= 0.0 && w.loss >= 0.0 && w.draw >= 0.0);
                assert!((w.value() - v.clamp(-1.0, 1.0)).abs() < 1e-6);
            }
        }
    }
}
