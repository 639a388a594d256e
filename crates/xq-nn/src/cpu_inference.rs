//! The network's forward pass for inference on the CPU, outside burn.
//!
//! Search asks the network for a few positions at a time, and at those sizes burn's flex backend
//! spends much of each call on tensor bookkeeping between small kernels. [`CpuNet`] is the same
//! network frozen for inference: batch norm folded into the convolutions before it, the SkipInit
//! gain folded into the second convolution of each block, activations kept position-major
//! (`[batch·90, channels]`) so that every convolution is one matrix product of an im2col buffer
//! with the weights (`matrixmultiply` through `ndarray`), and the heads' linear layers
//! re-indexed to read that layout directly. Its outputs equal burn's to float rounding (the
//! tests check both trunk kinds, with batch-norm statistics far from their initial values).
//!
//! Positions are independent, so a batch is cut into contiguous slices run on the current
//! rayon pool; each thread keeps its scratch buffers between calls, so a steady search
//! allocates nothing here but the returned arrays.

use std::cell::RefCell;

use burn::nn::BatchNorm;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;
use ndarray::{Array2, ArrayView2, ArrayViewMut2, Axis, linalg::general_mat_mul};
use rayon::prelude::*;

use crate::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES, INPUT_SIZE, PLANE_SIZE};
use crate::evaluator::EvalError;
use crate::model::PolicyValueNet;
use crate::policy::POLICY_SIZE;

/// Positions below which a batch is not split across threads: the split costs more than it
/// saves for a forward pass of a few positions.
const MIN_POSITIONS_PER_THREAD: usize = 4;

/// Positions one pass through the layers carries: an im2col buffer of 8 positions of a
/// 32-channel trunk is 830 KB, about a core's L2 cache.
const POSITIONS_PER_PASS: usize = 8;

/// A convolution with its normalisation folded in, as a `[kernel²·c_in, c_out]` matrix.
#[derive(Clone, Debug)]
struct FoldedConv {
    kernel: usize,
    c_in: usize,
    c_out: usize,
    /// Row `(tap·c_in + input channel)`, column output channel; taps in row-major kernel order.
    weight: Array2<f32>,
    bias: Vec<f32>,
}

/// A linear layer as `[d_in, d_out]` and its bias.
#[derive(Clone, Debug)]
struct Dense {
    weight: Array2<f32>,
    bias: Vec<f32>,
}

/// A [`PolicyValueNet`] frozen for inference on the CPU (see the module documentation).
#[derive(Clone, Debug)]
pub struct CpuNet {
    stem: FoldedConv,
    blocks: Vec<(FoldedConv, FoldedConv)>,
    policy_conv: FoldedConv,
    policy_fc: Dense,
    value_conv: FoldedConv,
    value_fc1: Dense,
    value_fc2: Dense,
    channels: usize,
}

fn values<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>, EvalError> {
    tensor.into_data().try_into_vec::<f32>().map_err(|e| EvalError::Backend(format!("{e:?}")))
}

fn fold_conv(conv: &Conv2d, norm: Option<&BatchNorm>, gain: f32) -> Result<FoldedConv, EvalError> {
    let [c_out, c_in, kernel, _] = conv.weight.val().dims();
    let raw = values(conv.weight.val())?;
    let mut bias = match &conv.bias {
        Some(bias) => values(bias.val())?,
        None => vec![0.0; c_out],
    };
    let mut scale = vec![1.0f32; c_out];
    if let Some(norm) = norm {
        let gamma = values(norm.gamma.val())?;
        let beta = values(norm.beta.val())?;
        let mean = values(norm.running_mean.value())?;
        let var = values(norm.running_var.value())?;
        for o in 0..c_out {
            scale[o] = gamma[o] / (var[o] + norm.epsilon as f32).sqrt();
            bias[o] = (bias[o] - mean[o]) * scale[o] + beta[o];
        }
    }
    for (o, b) in bias.iter_mut().enumerate() {
        scale[o] *= gain;
        *b *= gain;
    }
    let taps = kernel * kernel;
    let mut weight = Array2::<f32>::zeros((taps * c_in, c_out));
    for o in 0..c_out {
        for i in 0..c_in {
            for t in 0..taps {
                weight[[t * c_in + i, o]] = raw[(o * c_in + i) * taps + t] * scale[o];
            }
        }
    }
    Ok(FoldedConv { kernel, c_in, c_out, weight, bias })
}

/// A linear layer reading `[channels, 90]` (burn's flattened NCHW) re-indexed to read
/// `[90, channels]` (position-major), or as it is when `channels` is `None`.
fn dense(linear: &Linear, channels: Option<usize>) -> Result<Dense, EvalError> {
    let [d_in, d_out] = linear.weight.val().dims();
    let raw = Array2::from_shape_vec((d_in, d_out), values(linear.weight.val())?)
        .map_err(|e| EvalError::Backend(e.to_string()))?;
    let weight = match channels {
        Some(c) => Array2::from_shape_fn((d_in, d_out), |(row, col)| {
            let (square, channel) = (row / c, row % c);
            raw[[channel * PLANE_SIZE + square, col]]
        }),
        None => raw,
    };
    let bias = match &linear.bias {
        Some(bias) => values(bias.val())?,
        None => vec![0.0; d_out],
    };
    Ok(Dense { weight, bias })
}

/// For each square and each of the 9 taps of a 3×3 kernel, the square it reads (`None` off
/// the board, which reads 0: "same" padding).
const fn neighbours() -> [[Option<u8>; 9]; PLANE_SIZE] {
    let mut table = [[None; 9]; PLANE_SIZE];
    let mut square = 0;
    while square < PLANE_SIZE {
        let (row, col) = ((square / BOARD_COLS) as isize, (square % BOARD_COLS) as isize);
        let mut tap = 0;
        while tap < 9 {
            let (r, c) = (row + (tap / 3) as isize - 1, col + (tap % 3) as isize - 1);
            if r >= 0 && r < BOARD_ROWS as isize && c >= 0 && c < BOARD_COLS as isize {
                table[square][tap] = Some((r as usize * BOARD_COLS + c as usize) as u8);
            }
            tap += 1;
        }
        square += 1;
    }
    table
}

const NEIGHBOURS: [[Option<u8>; 9]; PLANE_SIZE] = neighbours();

/// One thread's buffers, grown to the largest slice it has seen.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    branch: Vec<f32>,
    tmp: Vec<f32>,
    columns: Vec<f32>,
    head: Vec<f32>,
    hidden: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

fn resized(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

/// `out = input ⋆ conv + bias` for `rows = positions·90` rows of `c_in` channels.
fn convolve(conv: &FoldedConv, input: &[f32], rows: usize, columns: &mut Vec<f32>, out: &mut [f32]) {
    let (c_in, c_out) = (conv.c_in, conv.c_out);
    let width = conv.kernel * conv.kernel * c_in;
    let input_view = ArrayView2::from_shape((rows, c_in), input).expect("input rows");
    let a = if conv.kernel == 1 {
        input_view
    } else {
        let buffer = resized(columns, rows * width);
        for position in 0..rows / PLANE_SIZE {
            let base = position * PLANE_SIZE;
            for (square, taps) in NEIGHBOURS.iter().enumerate() {
                let row = &mut buffer[(base + square) * width..(base + square + 1) * width];
                for (tap, source) in taps.iter().enumerate() {
                    let slot = &mut row[tap * c_in..(tap + 1) * c_in];
                    match source {
                        Some(from) => {
                            let from = (base + usize::from(*from)) * c_in;
                            slot.copy_from_slice(&input[from..from + c_in]);
                        }
                        None => slot.fill(0.0),
                    }
                }
            }
        }
        ArrayView2::from_shape((rows, width), &buffer[..]).expect("im2col rows")
    };
    for row in out.chunks_exact_mut(c_out) {
        row.copy_from_slice(&conv.bias);
    }
    add_product(&a, &conv.weight, out);
}

/// `out = input · layer + bias` for `rows` rows.
fn affine(layer: &Dense, input: &[f32], rows: usize, out: &mut [f32]) {
    let (d_in, d_out) = layer.weight.dim();
    let a = ArrayView2::from_shape((rows, d_in), input).expect("input rows");
    for row in out.chunks_exact_mut(d_out) {
        row.copy_from_slice(&layer.bias);
    }
    add_product(&a, &layer.weight, out);
}

/// Rows of the product computed together: each weight row loaded is used this many times.
const BLOCK_ROWS: usize = 4;
/// Columns of the product computed together (two AVX2 registers of eight).
const BLOCK_COLUMNS: usize = 16;

/// `out += a · b`, `out` row-major `[a.rows, b.columns]`. With AVX2 and FMA, products at
/// least [`BLOCK_COLUMNS`] wide run in a register-blocked kernel that reads the weights where
/// they lie (a general GEMM packs both operands on every call, which at a search's batch sizes
/// costs as much as the arithmetic); anything else goes to `matrixmultiply`.
fn add_product(a: &ArrayView2<'_, f32>, b: &Array2<f32>, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if b.ncols() >= BLOCK_COLUMNS
        && std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && let (Some(a_values), Some(b_values)) = (a.as_slice(), b.as_slice())
    {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX2 and FMA, checked just above; the kernel needs nothing else.
        unsafe {
            add_product_avx2(a_values, a.ncols(), b_values, b.ncols(), out);
        }
        return;
    }
    let (rows, columns) = (a.nrows(), b.ncols());
    let mut c = ArrayViewMut2::from_shape((rows, columns), out).expect("output rows");
    general_mat_mul(1.0, a, b, 1.0, &mut c);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn add_product_avx2(a: &[f32], depth: usize, b: &[f32], columns: usize, out: &mut [f32]) {
    add_product_blocked(a, depth, b, columns, out);
}

/// The kernel of [`add_product`], written for the compiler to vectorise: a block of
/// [`BLOCK_ROWS`] × [`BLOCK_COLUMNS`] accumulators stays in registers over the whole depth.
#[inline(always)]
fn add_product_blocked(a: &[f32], depth: usize, b: &[f32], columns: usize, out: &mut [f32]) {
    let rows = a.len() / depth;
    let full_columns = columns - columns % BLOCK_COLUMNS;
    let mut row = 0;
    while row < rows {
        let block_rows = BLOCK_ROWS.min(rows - row);
        let mut column = 0;
        while column < full_columns {
            let mut acc = [[0.0f32; BLOCK_COLUMNS]; BLOCK_ROWS];
            for (r, acc) in acc.iter_mut().enumerate().take(block_rows) {
                acc.copy_from_slice(&out[(row + r) * columns + column..][..BLOCK_COLUMNS]);
            }
            if block_rows == BLOCK_ROWS {
                for k in 0..depth {
                    let weights: &[f32; BLOCK_COLUMNS] =
                        b[k * columns + column..][..BLOCK_COLUMNS].try_into().expect("block");
                    for (r, acc) in acc.iter_mut().enumerate() {
                        let x = a[(row + r) * depth + k];
                        for (acc, w) in acc.iter_mut().zip(weights) {
                            *acc = x.mul_add(*w, *acc);
                        }
                    }
                }
            } else {
                for k in 0..depth {
                    let weights: &[f32; BLOCK_COLUMNS] =
                        b[k * columns + column..][..BLOCK_COLUMNS].try_into().expect("block");
                    for (r, acc) in acc.iter_mut().enumerate().take(block_rows) {
                        let x = a[(row + r) * depth + k];
                        for (acc, w) in acc.iter_mut().zip(weights) {
                            *acc = x.mul_add(*w, *acc);
                        }
                    }
                }
            }
            for (r, acc) in acc.iter().enumerate().take(block_rows) {
                out[(row + r) * columns + column..][..BLOCK_COLUMNS].copy_from_slice(acc);
            }
            column += BLOCK_COLUMNS;
        }
        for r in row..row + block_rows {
            for k in 0..depth {
                let x = a[r * depth + k];
                for c in full_columns..columns {
                    out[r * columns + c] = x.mul_add(b[k * columns + c], out[r * columns + c]);
                }
            }
        }
        row += block_rows;
    }
}

fn relu(values: &mut [f32]) {
    for v in values {
        *v = v.max(0.0);
    }
}

impl CpuNet {
    /// Freezes `net` (in inference mode: batch norm on its running statistics).
    ///
    /// # Errors
    /// [`EvalError::Backend`] if a weight cannot be read back as `f32`.
    pub fn from_net(net: &PolicyValueNet) -> Result<CpuNet, EvalError> {
        let stem = fold_conv(&net.stem.conv, net.stem.norm.as_ref(), 1.0)?;
        let blocks = net
            .blocks
            .iter()
            .map(|block| {
                let gain = match &block.skip_gain {
                    Some(gain) => values(gain.val())?.first().copied().unwrap_or(1.0),
                    None => 1.0,
                };
                Ok((
                    fold_conv(&block.conv1.conv, block.conv1.norm.as_ref(), 1.0)?,
                    fold_conv(&block.conv2.conv, block.conv2.norm.as_ref(), gain)?,
                ))
            })
            .collect::<Result<Vec<_>, EvalError>>()?;
        let policy_conv = fold_conv(&net.policy_conv.conv, net.policy_conv.norm.as_ref(), 1.0)?;
        let value_conv = fold_conv(&net.value_conv.conv, net.value_conv.norm.as_ref(), 1.0)?;
        Ok(CpuNet {
            policy_fc: dense(&net.policy_fc, Some(policy_conv.c_out))?,
            value_fc1: dense(&net.value_fc1, Some(value_conv.c_out))?,
            value_fc2: dense(&net.value_fc2, None)?,
            channels: stem.c_out,
            stem,
            blocks,
            policy_conv,
            value_conv,
        })
    }

    /// Policy logits `[batch, POLICY_SIZE]` and WDL logits `[batch, 3]` for encoded inputs,
    /// flattened `[batch, INPUT_PLANES, 10, 9]` (what [`crate::encode_position`] writes).
    ///
    /// # Errors
    /// [`EvalError::InputShape`] if `inputs` is not a whole number of encoded positions.
    pub fn forward(&self, inputs: &[f32]) -> Result<(Array2<f32>, Array2<f32>), EvalError> {
        if !inputs.len().is_multiple_of(INPUT_SIZE) {
            return Err(EvalError::InputShape { found: vec![inputs.len()] });
        }
        let batch = inputs.len() / INPUT_SIZE;
        let mut policy = Array2::<f32>::zeros((batch, POLICY_SIZE));
        let mut wdl = Array2::<f32>::zeros((batch, 3));
        if batch == 0 {
            return Ok((policy, wdl));
        }
        let threads = rayon::current_num_threads().min(batch / MIN_POSITIONS_PER_THREAD).max(1);
        let per_thread = batch.div_ceil(threads);
        let policy_rows = policy.axis_chunks_iter_mut(Axis(0), per_thread);
        let wdl_rows = wdl.axis_chunks_iter_mut(Axis(0), per_thread);
        let slices: Vec<_> = inputs.chunks(per_thread * INPUT_SIZE).zip(policy_rows.zip(wdl_rows)).collect();
        if slices.len() == 1 {
            for (input, (mut p, mut v)) in slices {
                self.forward_slice(input, &mut p, &mut v);
            }
        } else {
            slices
                .into_par_iter()
                .for_each(|(input, (mut p, mut v))| self.forward_slice(input, &mut p, &mut v));
        }
        Ok((policy, wdl))
    }

    /// One thread's share of a batch, a few positions at a time so that the im2col buffer
    /// stays in the core's cache.
    fn forward_slice(
        &self,
        inputs: &[f32],
        policy: &mut ArrayViewMut2<'_, f32>,
        wdl: &mut ArrayViewMut2<'_, f32>,
    ) {
        let chunks = inputs.chunks(POSITIONS_PER_PASS * INPUT_SIZE);
        let policy_rows = policy.axis_chunks_iter_mut(Axis(0), POSITIONS_PER_PASS);
        let wdl_rows = wdl.axis_chunks_iter_mut(Axis(0), POSITIONS_PER_PASS);
        for (input, (mut p, mut v)) in chunks.zip(policy_rows.zip(wdl_rows)) {
            self.forward_pass(input, &mut p, &mut v);
        }
    }

    fn forward_pass(
        &self,
        inputs: &[f32],
        policy: &mut ArrayViewMut2<'_, f32>,
        wdl: &mut ArrayViewMut2<'_, f32>,
    ) {
        SCRATCH.with_borrow_mut(|scratch| {
            let positions = inputs.len() / INPUT_SIZE;
            let rows = positions * PLANE_SIZE;
            let c = self.channels;
            let Scratch { x, branch, tmp, columns, head, hidden } = scratch;

            // Planes to position-major rows.
            let planes = resized(tmp, rows * INPUT_PLANES);
            for (position, encoded) in inputs.chunks_exact(INPUT_SIZE).enumerate() {
                for plane in 0..INPUT_PLANES {
                    for square in 0..PLANE_SIZE {
                        planes[(position * PLANE_SIZE + square) * INPUT_PLANES + plane] =
                            encoded[plane * PLANE_SIZE + square];
                    }
                }
            }
            let x = resized(x, rows * c);
            convolve(&self.stem, &tmp[..rows * INPUT_PLANES], rows, columns, x);
            relu(x);

            let branch = resized(branch, rows * c);
            let tmp = resized(tmp, rows * c);
            for (conv1, conv2) in &self.blocks {
                convolve(conv1, x, rows, columns, tmp);
                relu(tmp);
                convolve(conv2, tmp, rows, columns, branch);
                for (x, b) in x.iter_mut().zip(branch.iter()) {
                    *x = (*x + b).max(0.0);
                }
            }

            let pc = self.policy_conv.c_out;
            let head_buffer = resized(head, rows * pc.max(self.value_conv.c_out));
            convolve(&self.policy_conv, x, rows, columns, &mut head_buffer[..rows * pc]);
            relu(&mut head_buffer[..rows * pc]);
            let logits = policy.as_slice_mut().expect("contiguous policy rows");
            affine(&self.policy_fc, &head_buffer[..rows * pc], positions, logits);

            let vc = self.value_conv.c_out;
            convolve(&self.value_conv, x, rows, columns, &mut head_buffer[..rows * vc]);
            relu(&mut head_buffer[..rows * vc]);
            let width = self.value_fc1.bias.len();
            let hidden = resized(hidden, positions * width);
            affine(&self.value_fc1, &head_buffer[..rows * vc], positions, hidden);
            relu(hidden);
            let out = wdl.as_slice_mut().expect("contiguous WDL rows");
            affine(&self.value_fc2, hidden, positions, out);
        });
    }
}

#[cfg(test)]
mod tests {
    use burn::module::{Param, RunningState};
    use ndarray::Array4;

    use super::*;
    use crate::evaluator::BatchEvaluator;
    use crate::model::{ModelConfig, TrunkNorm};

    fn inputs(batch: usize, seed: u64) -> Array4<f32> {
        let mut state = seed;
        Array4::from_shape_fn((batch, INPUT_PLANES, BOARD_ROWS, BOARD_COLS), |_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (state >> 33).is_multiple_of(7) { 1.0 } else { 0.0 }
        })
    }

    /// A tensor of `len` values spread over `[low, low + width)`, from `seed`.
    fn spread(len: usize, low: f32, width: f32, seed: u64, device: &Device) -> Tensor<1> {
        let values: Vec<f32> = (0..len)
            .map(|i| low + width * (((i as u64 * 2654435761 + seed * 97) % 1000) as f32 / 1000.0))
            .collect();
        Tensor::from_data(TensorData::new(values, [len]), device)
    }

    /// Batch-norm statistics and SkipInit gains far from their initial values, so that a
    /// folding mistake shows.
    fn perturbed(mut net: PolicyValueNet, device: &Device) -> PolicyValueNet {
        let mut seed = 0;
        let mut perturb = |norm: &mut Option<BatchNorm>| {
            if let Some(norm) = norm {
                let n = norm.gamma.val().dims()[0];
                seed += 1;
                norm.gamma = Param::from_tensor(spread(n, 0.5, 1.0, seed, device));
                norm.beta = Param::from_tensor(spread(n, -0.3, 0.6, seed + 50, device));
                norm.running_mean = RunningState::new(spread(n, -0.5, 1.0, seed + 100, device));
                norm.running_var = RunningState::new(spread(n, 0.2, 2.0, seed + 150, device));
            }
        };
        perturb(&mut net.stem.norm);
        for block in &mut net.blocks {
            perturb(&mut block.conv1.norm);
            perturb(&mut block.conv2.norm);
            if block.skip_gain.is_some() {
                block.skip_gain = Some(Param::from_tensor(spread(1, 0.3, 0.1, 7, device)));
            }
        }
        perturb(&mut net.policy_conv.norm);
        perturb(&mut net.value_conv.norm);
        net
    }

    #[test]
    fn matches_burn_for_both_trunks_and_any_batch() {
        let device = Device::flex();
        for norm in [TrunkNorm::BatchNorm, TrunkNorm::SkipInit] {
            let mut config = ModelConfig::new(2, 16).with_trunk_norm(norm);
            config.seed = 3;
            let net = perturbed(PolicyValueNet::new(&config, &device).unwrap(), &device);
            let cpu = CpuNet::from_net(&net.clone().valid()).unwrap();
            let burn = BatchEvaluator::new(net, device.clone(), 0);
            for batch in [1, 5, 16, 33] {
                let x = inputs(batch, batch as u64);
                let (policy, wdl) = burn.burn_forward_logits(&x).unwrap();
                let (fast_policy, fast_wdl) = cpu.forward(x.as_slice().unwrap()).unwrap();
                let worst = |a: &Array2<f32>, b: &Array2<f32>| {
                    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max)
                };
                let scale = policy.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1.0);
                assert!(worst(&policy, &fast_policy) < 1e-4 * scale, "{norm:?} batch {batch}: policy");
                assert!(worst(&wdl, &fast_wdl) < 1e-4 * scale, "{norm:?} batch {batch}: wdl");
            }
        }
    }

    #[test]
    fn the_same_inputs_give_the_same_outputs_on_any_pool() {
        let device = Device::flex();
        let net = PolicyValueNet::new(&ModelConfig::new(1, 16), &device).unwrap();
        let cpu = CpuNet::from_net(&net.valid()).unwrap();
        let x = inputs(37, 1);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let a = one.install(|| cpu.forward(x.as_slice().unwrap()).unwrap());
        let b = three.install(|| cpu.forward(x.as_slice().unwrap()).unwrap());
        assert_eq!(a, b);
        assert!(cpu.forward(&[0.0; 5]).is_err(), "a partial position is refused");
        assert_eq!(cpu.forward(&[]).unwrap().0.dim(), (0, POLICY_SIZE));
    }
}
