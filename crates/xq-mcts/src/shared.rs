//! One evaluator shared by many searches on many threads, with their requests merged into
//! batches: [`SharedEvaluator`] owns the evaluator on a thread of its own, and each game thread
//! evaluates through a [`SharedHandle`], which is itself an [`Evaluator`].
//!
//! Batching is greedy: the evaluation thread takes every request waiting when it becomes free and
//! evaluates them as one batch. While it evaluates, the searches it will answer next queue up, so
//! with `n` games in flight the batches grow toward `n` positions without any request waiting on
//! a timer. A lone search is answered at once, at batch size one.
//!
//! In steady state nothing is allocated: each handle owns its request buffers and lends them to
//! the evaluation thread, which hands them back with the results written in.
//!
//! ```
//! use xq_core::Position;
//! use xq_mcts::{EvalBatch, EvalResults, HistoryFeatures, MaterialEvaluator, SharedEvaluator, evaluate_batch};
//!
//! let shared = SharedEvaluator::spawn(MaterialEvaluator::default(), 64)?;
//! let threads: Vec<_> = (0..4)
//!     .map(|_| {
//!         let mut handle = shared.handle();
//!         std::thread::spawn(move || {
//!             let start = Position::startpos();
//!             let moves = start.legal_moves();
//!             let mut batch = EvalBatch::new();
//!             batch.push(&start, HistoryFeatures::default(), &moves);
//!             let mut out = EvalResults::new();
//!             evaluate_batch(&mut handle, &batch, &mut out).unwrap();
//!             out.priors(0).len()
//!         })
//!     })
//!     .collect();
//! for t in threads {
//!     assert_eq!(t.join().unwrap(), 44);
//! }
//! assert_eq!(shared.stats().positions, 4);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use crate::evaluator::{EvalBatch, EvalError, EvalResults, Evaluator, evaluate_batch};

/// A request lent to the evaluation thread: the handle's buffers and where to send them back.
struct Job {
    batch: EvalBatch,
    results: EvalResults,
    /// The evaluation's failure, as text (the error itself may not be `Clone`).
    failure: Option<String>,
    reply: Sender<Job>,
}

/// Counters of the evaluation thread, for reports and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedStats {
    /// Batches evaluated.
    pub batches: u64,
    /// Positions evaluated, over all batches.
    pub positions: u64,
    /// Requests (one per [`Evaluator::evaluate`] call of a handle) served.
    pub requests: u64,
}

impl SharedStats {
    /// Mean positions per evaluated batch (0 before the first).
    pub fn mean_batch(&self) -> f64 {
        if self.batches == 0 { 0.0 } else { self.positions as f64 / self.batches as f64 }
    }
}

#[derive(Default)]
struct Counters {
    batches: AtomicU64,
    positions: AtomicU64,
    requests: AtomicU64,
}

/// An evaluator running on its own thread, serving any number of [`SharedHandle`]s.
///
/// The thread ends when the `SharedEvaluator` and every handle are dropped.
pub struct SharedEvaluator {
    submit: Sender<Job>,
    counters: Arc<Counters>,
    preferred_batch: usize,
}

impl std::fmt::Debug for SharedEvaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedEvaluator").field("stats", &self.stats()).finish()
    }
}

impl SharedEvaluator {
    /// Moves `evaluator` onto a new thread. A batch takes at most `max_batch` positions (at
    /// least one request, however large); requests beyond it wait for the next batch.
    ///
    /// # Errors
    /// The operating system's error when it cannot start the thread.
    pub fn spawn<E: Evaluator + 'static>(evaluator: E, max_batch: usize) -> std::io::Result<SharedEvaluator> {
        let (submit, requests) = channel::<Job>();
        let counters = Arc::new(Counters::default());
        let preferred_batch = evaluator.preferred_batch_size();
        let thread_counters = Arc::clone(&counters);
        std::thread::Builder::new()
            .name("xq-shared-eval".into())
            .spawn(move || serve(evaluator, requests, max_batch.max(1), &thread_counters))?;
        Ok(SharedEvaluator { submit, counters, preferred_batch })
    }

    /// A new handle: an [`Evaluator`] for one search thread.
    pub fn handle(&self) -> SharedHandle {
        let (reply, replies) = channel();
        SharedHandle {
            submit: self.submit.clone(),
            replies,
            spare: Some(Job { batch: EvalBatch::new(), results: EvalResults::new(), failure: None, reply }),
            preferred_batch: self.preferred_batch,
        }
    }

    /// What the evaluation thread has done so far.
    pub fn stats(&self) -> SharedStats {
        SharedStats {
            batches: self.counters.batches.load(Ordering::Relaxed),
            positions: self.counters.positions.load(Ordering::Relaxed),
            requests: self.counters.requests.load(Ordering::Relaxed),
        }
    }
}

/// The evaluation thread: waits for a request, takes all others already waiting (up to
/// `max_batch` positions), evaluates them as one batch and sends each its part.
fn serve<E: Evaluator>(mut evaluator: E, requests: Receiver<Job>, max_batch: usize, counters: &Counters) {
    let mut jobs: Vec<Job> = Vec::new();
    let mut merged = EvalBatch::new();
    let mut merged_out = EvalResults::new();
    let mut held: Option<Job> = None;
    loop {
        let first = match held.take() {
            Some(job) => job,
            None => match requests.recv() {
                Ok(job) => job,
                Err(_) => return,
            },
        };
        let mut size = first.batch.len();
        jobs.push(first);
        while size < max_batch {
            match requests.try_recv() {
                Ok(job) if size + job.batch.len() <= max_batch => {
                    size += job.batch.len();
                    jobs.push(job);
                }
                Ok(job) => {
                    held = Some(job);
                    break;
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
            }
        }
        merged.clear();
        for job in &jobs {
            merged.append(&job.batch);
        }
        let outcome = evaluate_batch(&mut evaluator, &merged, &mut merged_out);
        counters.batches.fetch_add(1, Ordering::Relaxed);
        counters.positions.fetch_add(merged.len() as u64, Ordering::Relaxed);
        counters.requests.fetch_add(jobs.len() as u64, Ordering::Relaxed);
        let mut offset = 0;
        for mut job in jobs.drain(..) {
            job.results.prepare(&job.batch);
            match &outcome {
                Ok(()) => {
                    job.failure = None;
                    job.results.copy_range_from(&merged_out, offset);
                }
                Err(e) => job.failure = Some(e.to_string()),
            }
            offset += job.batch.len();
            let reply = job.reply.clone();
            // A handle that went away no longer wants its answer.
            let _ = reply.send(job);
        }
    }
}

/// One search thread's access to a [`SharedEvaluator`].
pub struct SharedHandle {
    submit: Sender<Job>,
    replies: Receiver<Job>,
    /// The request buffers, home between requests.
    spare: Option<Job>,
    preferred_batch: usize,
}

impl std::fmt::Debug for SharedHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedHandle").finish_non_exhaustive()
    }
}

impl Evaluator for SharedHandle {
    fn preferred_batch_size(&self) -> usize {
        self.preferred_batch
    }

    fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError> {
        let stopped = || EvalError::Unsupported("the shared evaluation thread has stopped".into());
        let mut job = self.spare.take().ok_or_else(stopped)?;
        job.batch.clear();
        job.batch.append(batch);
        self.submit.send(job).map_err(|_| stopped())?;
        let job = self.replies.recv().map_err(|_| stopped())?;
        let result = match &job.failure {
            Some(message) => Err(EvalError::Unsupported(format!("shared evaluation failed: {message}"))),
            None => {
                out.copy_range_from(&job.results, 0);
                Ok(())
            }
        };
        self.spare = Some(job);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::{MaterialEvaluator, Wdl};
    use std::sync::{Barrier, Mutex};
    use xq_core::HistoryFeatures;
    use xq_core::Position;

    /// Records the size of every batch it sees and answers each request with its tag (the
    /// capture clock) as the win probability and `tag + k` as the k-th prior. Its first
    /// evaluation waits at two barriers, so a test can queue requests behind it.
    struct Recording {
        sizes: Sizes,
        entered: Arc<Barrier>,
        release: Arc<Barrier>,
        first: bool,
    }

    /// The batch sizes a [`Recording`] saw.
    type Sizes = Arc<Mutex<Vec<usize>>>;

    impl Recording {
        fn new() -> (Recording, Sizes, Arc<Barrier>, Arc<Barrier>) {
            let sizes = Arc::new(Mutex::new(Vec::new()));
            let (entered, release) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
            let recording = Recording {
                sizes: Arc::clone(&sizes),
                entered: Arc::clone(&entered),
                release: Arc::clone(&release),
                first: true,
            };
            (recording, sizes, entered, release)
        }
    }

    impl Evaluator for Recording {
        fn evaluate(&mut self, batch: &EvalBatch, out: &mut EvalResults) -> Result<(), EvalError> {
            if self.first {
                self.first = false;
                self.entered.wait();
                self.release.wait();
            }
            self.sizes.lock().unwrap().push(batch.len());
            for (i, request) in batch.iter().enumerate() {
                let (wdl, priors) = out.slot_mut(i);
                let tag = request.history.limit_plies as f32;
                *wdl = Wdl { win: tag, draw: 0.0, loss: 0.0 };
                for (k, p) in priors.iter_mut().enumerate() {
                    *p = tag + k as f32;
                }
            }
            Ok(())
        }
    }

    fn request(tag: u32) -> EvalBatch {
        let start = Position::startpos();
        let moves = start.legal_moves();
        let mut batch = EvalBatch::new();
        batch.push(&start, HistoryFeatures { limit_plies: tag, ..HistoryFeatures::default() }, &moves[..3]);
        batch
    }

    /// Evaluates request `tag` through a new handle on another thread; returns the answer's
    /// win value and priors.
    fn ask(shared: &SharedEvaluator, tag: u32) -> std::thread::JoinHandle<(f32, Vec<f32>)> {
        let mut handle = shared.handle();
        std::thread::spawn(move || {
            let mut out = EvalResults::new();
            evaluate_batch(&mut handle, &request(tag), &mut out).unwrap();
            (out.wdl(0).win, out.priors(0).to_vec())
        })
    }

    /// Runs request 100 until the evaluation thread is busy with it, queues `tags` behind it,
    /// then lets it go; returns the batch sizes seen.
    fn queue_behind_a_busy_thread(max_batch: usize, tags: std::ops::RangeInclusive<u32>) -> Vec<usize> {
        let (recording, sizes, entered, release) = Recording::new();
        let shared = SharedEvaluator::spawn(recording, max_batch).unwrap();
        let first = ask(&shared, 100);
        entered.wait();
        let others: Vec<_> = tags.map(|tag| (tag, ask(&shared, tag))).collect();
        // Time for the other threads to send their requests; they cannot be answered before
        // the release, so a slow start only makes the later batches smaller, never wrong.
        std::thread::sleep(std::time::Duration::from_millis(300));
        release.wait();
        assert_eq!(first.join().unwrap().0, 100.0);
        for (tag, t) in others {
            let (win, priors) = t.join().unwrap();
            assert_eq!(win, tag as f32, "answer for request {tag}");
            assert_eq!(priors, vec![tag as f32, tag as f32 + 1.0, tag as f32 + 2.0]);
        }
        let stats = shared.stats();
        let sizes = sizes.lock().unwrap().clone();
        assert_eq!(stats.batches as usize, sizes.len());
        assert_eq!(stats.positions as usize, sizes.iter().sum::<usize>());
        sizes
    }

    #[test]
    fn waiting_requests_are_merged_and_each_gets_its_own_answer() {
        let sizes = queue_behind_a_busy_thread(64, 1..=5);
        assert_eq!(sizes, vec![1, 5], "the five waiting requests form one batch");
    }

    #[test]
    fn max_batch_splits_the_queue() {
        let sizes = queue_behind_a_busy_thread(2, 1..=5);
        assert_eq!(sizes, vec![1, 2, 2, 1]);
    }

    #[test]
    fn answers_equal_the_evaluator_called_directly() {
        let shared = SharedEvaluator::spawn(MaterialEvaluator::default(), 16).unwrap();
        let mut handle = shared.handle();
        let position =
            Position::from_fen("1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1")
                .unwrap();
        let moves = position.legal_moves();
        let mut batch = EvalBatch::new();
        batch.push(&position, HistoryFeatures::default(), &moves);
        batch.push(&Position::startpos(), HistoryFeatures::default(), &Position::startpos().legal_moves());
        let (mut direct, mut via_handle) = (EvalResults::new(), EvalResults::new());
        evaluate_batch(&mut MaterialEvaluator::default(), &batch, &mut direct).unwrap();
        for _ in 0..3 {
            evaluate_batch(&mut handle, &batch, &mut via_handle).unwrap();
            for i in 0..2 {
                assert_eq!(direct.wdl(i), via_handle.wdl(i));
                assert_eq!(direct.priors(i), via_handle.priors(i));
            }
        }
    }

    struct Failing;
    impl Evaluator for Failing {
        fn evaluate(&mut self, _: &EvalBatch, _: &mut EvalResults) -> Result<(), EvalError> {
            Err(EvalError::Unsupported("no".into()))
        }
    }

    #[test]
    fn a_failing_evaluator_fails_each_request_with_its_message() {
        let shared = SharedEvaluator::spawn(Failing, 8).unwrap();
        let mut handle = shared.handle();
        let mut out = EvalResults::new();
        let err = evaluate_batch(&mut handle, &request(1), &mut out).unwrap_err();
        assert!(err.to_string().contains("no"), "{err}");
        // The handle keeps working (and failing) afterwards.
        assert!(evaluate_batch(&mut handle, &request(2), &mut out).is_err());
    }
}
