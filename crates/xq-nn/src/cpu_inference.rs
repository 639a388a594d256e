//! The network's forward pass for inference on the CPU, outside burn.
//!
//! Search asks the network for a few positions at a time, and at those sizes burn's flex backend
//! spends much of each call on tensor bookkeeping between small kernels. [`CpuNet`] is the same
//! network frozen for inference: batch norm folded into the convolutions before it, the SkipInit
//! gain folded into the second convolution of each block, activations kept position-major
//! (`[batch·90, channels]`) so that every convolution is one matrix product of its im2col
//! matrix with the weights, and the heads' linear layers re-indexed to read that layout
//! directly. The products run in a register-tiled kernel (`cpu_inference/product.rs`: AVX-512,
//! AVX2 or portable, the widest the CPU has, see [`Kernel`]) that reads a 3×3 convolution's taps
//! straight from the activations, with no im2col copy; [`Precision::Int8`] runs most layers in
//! 8-bit integers on AVX-512 VNNI instead (`cpu_inference/int8.rs`).
//! Its outputs equal burn's to float rounding (the tests check both trunk kinds, with
//! batch-norm statistics far from their initial values).
//!
//! Positions are independent, so a batch is cut into contiguous slices run on the current
//! rayon pool; each thread keeps its scratch buffers between calls, so a steady search
//! allocates nothing here but the returned arrays.

use std::cell::RefCell;

use burn::nn::BatchNorm;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;
use ndarray::{Array2, ArrayViewMut2, Axis};
use rayon::prelude::*;

use crate::encoding::{BOARD_COLS, BOARD_ROWS, INPUT_PLANES, INPUT_SIZE, PLANE_SIZE};
use crate::evaluator::EvalError;
use crate::model::{MAX_CHANNELS, PolicyValueNet};
use crate::policy::POLICY_SIZE;

mod int8;
mod product;
use int8::{Int8Weights, quantize};
pub use product::Kernel;
pub(crate) use product::{LeftRows, Matrix, add_product};

/// The arithmetic of [`CpuNet`]'s products (`"f32"` or `"int8"` in configs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// `f32` throughout, in the [`Kernel`] chosen.
    #[default]
    F32,
    /// The trunk's convolutions and the heads' inner layers in 8-bit integers on AVX-512 VNNI
    /// (activations one scale a position, weights one scale an output channel; `int8.rs`);
    /// the stem and the last value layer stay `f32`. Needs a CPU with AVX-512 VNNI.
    Int8,
}

impl Precision {
    /// Every precision.
    pub const ALL: [Precision; 2] = [Precision::F32, Precision::Int8];

    /// Whether this CPU runs it.
    pub fn is_supported(self) -> bool {
        match self {
            Precision::F32 => true,
            Precision::Int8 => int8::is_supported(),
        }
    }

    /// Its name in options and reports: `f32` or `int8`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Int8 => "int8",
        }
    }

    /// The precision named `name` (as [`Precision::name`] writes it).
    pub fn from_name(name: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The layers [`Precision::Int8`] runs in 8 bits, quantized once from the folded `f32` ones.
#[derive(Clone, Debug)]
struct Int8Layers {
    blocks: Vec<(Int8Weights, Int8Weights)>,
    policy_conv: Int8Weights,
    policy_fc: Int8Weights,
    value_conv: Int8Weights,
    value_fc1: Int8Weights,
}

/// Positions below which a batch is not split across threads: the split costs more than it
/// saves for a forward pass of a few positions.
const MIN_POSITIONS_PER_THREAD: usize = 4;

/// Positions one pass through the layers carries: the activations of 8 positions of a
/// 32-channel trunk (three buffers of 92 KB) stay in a core's L2 cache.
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
    kernel: Kernel,
    /// Present when the products run in [`Precision::Int8`].
    int8: Option<Int8Layers>,
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

pub(crate) const NEIGHBOURS: [[Option<u8>; 9]; PLANE_SIZE] = neighbours();

/// One thread's buffers, grown to the largest slice it has seen.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    branch: Vec<f32>,
    tmp: Vec<f32>,
    gathered: Vec<f32>,
    head: Vec<f32>,
    hidden: Vec<f32>,
    bytes: Vec<u8>,
    scales: Vec<f32>,
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

/// The rows of a 3×3 "same" convolution's im2col matrix over position-major activations,
/// read where they lie: tap `t` of row `r` is the `c_in` channels of the square that tap
/// reaches, or zeros off the board.
#[derive(Clone, Copy)]
pub(crate) struct Taps<'a, T> {
    pub(crate) input: &'a [T],
    /// A row's width: the channels, padded for the int8 products.
    pub(crate) c_in: usize,
}

/// A value a tap off the board reads as a run of zeros.
pub(crate) trait OffBoard: Copy + 'static {
    const ZEROS: &'static [Self];
}

impl OffBoard for f32 {
    const ZEROS: &'static [f32] = &[0.0; MAX_CHANNELS];
}

impl OffBoard for u8 {
    const ZEROS: &'static [u8] = &[0; MAX_CHANNELS];
}

impl<T: OffBoard> LeftRows for Taps<'_, T> {
    type Value = T;

    fn shape(&self) -> (usize, usize) {
        (9, self.c_in)
    }

    fn segment(&self, row: usize, tap: usize) -> &[T] {
        let square = row % PLANE_SIZE;
        match NEIGHBOURS[square][tap] {
            Some(from) => {
                let from = (row - square + usize::from(from)) * self.c_in;
                &self.input[from..from + self.c_in]
            }
            None => &T::ZEROS[..self.c_in],
        }
    }
}

/// The products of one pass: the kernel and the buffers they work in.
struct Products<'a> {
    kernel: Kernel,
    gathered: &'a mut Vec<f32>,
    bytes: &'a mut Vec<u8>,
    scales: &'a mut Vec<f32>,
}

impl Products<'_> {
    /// `out = input ⋆ conv + bias` for `rows = positions·90` rows of `c_in` channels, in 8
    /// bits when `int8` holds the convolution's quantized weights.
    fn convolve(
        &mut self,
        conv: &FoldedConv,
        int8: Option<&Int8Weights>,
        input: &[f32],
        rows: usize,
        out: &mut [f32],
    ) {
        for row in out.chunks_exact_mut(conv.c_out) {
            row.copy_from_slice(&conv.bias);
        }
        let input = &input[..rows * conv.c_in];
        match int8 {
            Some(weights) => {
                let width = weights.segment_len();
                quantize(input, conv.c_in, width, PLANE_SIZE, self.bytes, self.scales);
                let bytes = &self.bytes[..];
                if conv.kernel == 1 {
                    let left = Matrix { values: bytes, depth: width };
                    int8::add_product(left, rows, weights, self.scales, PLANE_SIZE, out);
                } else {
                    let left = Taps { input: bytes, c_in: width };
                    int8::add_product(left, rows, weights, self.scales, PLANE_SIZE, out);
                }
            }
            None if conv.kernel == 1 => {
                let left = Matrix { values: input, depth: conv.c_in };
                add_product(self.kernel, left, rows, &conv.weight, out, self.gathered);
            }
            None => {
                let left = Taps { input, c_in: conv.c_in };
                add_product(self.kernel, left, rows, &conv.weight, out, self.gathered);
            }
        }
    }

    /// `out = input · layer + bias` for `rows` rows, in 8 bits when `int8` holds the layer's
    /// quantized weights.
    fn affine(
        &mut self,
        layer: &Dense,
        int8: Option<&Int8Weights>,
        input: &[f32],
        rows: usize,
        out: &mut [f32],
    ) {
        let (d_in, d_out) = layer.weight.dim();
        for row in out.chunks_exact_mut(d_out) {
            row.copy_from_slice(&layer.bias);
        }
        let input = &input[..rows * d_in];
        match int8 {
            Some(weights) => {
                let width = weights.segment_len();
                quantize(input, d_in, width, 1, self.bytes, self.scales);
                let left = Matrix { values: &self.bytes[..], depth: width };
                int8::add_product(left, rows, weights, self.scales, 1, out);
            }
            None => {
                let left = Matrix { values: input, depth: d_in };
                add_product(self.kernel, left, rows, &layer.weight, out, self.gathered);
            }
        }
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
            kernel: Kernel::best(),
            int8: None,
            stem,
            blocks,
            policy_conv,
            value_conv,
        })
    }

    /// The kernel the products run in ([`Kernel::best`] unless [`CpuNet::with_kernel`] chose
    /// another).
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The same network on `kernel`, for a comparison.
    ///
    /// # Errors
    /// [`EvalError::Backend`] if this CPU lacks the kernel's instructions.
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<CpuNet, EvalError> {
        if !kernel.is_supported() {
            return Err(EvalError::Backend(format!("this CPU cannot run the {} kernel", kernel.name())));
        }
        self.kernel = kernel;
        Ok(self)
    }

    /// The arithmetic of the products ([`Precision::F32`] unless [`CpuNet::with_precision`]
    /// chose another).
    pub fn precision(&self) -> Precision {
        if self.int8.is_some() { Precision::Int8 } else { Precision::F32 }
    }

    /// The same network in `precision` ([`Precision::Int8`] quantizes its weights here).
    ///
    /// # Errors
    /// [`EvalError::Backend`] if this CPU lacks the precision's instructions.
    pub fn with_precision(mut self, precision: Precision) -> Result<CpuNet, EvalError> {
        if !precision.is_supported() {
            return Err(EvalError::Backend(format!("this CPU cannot run the {} products", precision.name())));
        }
        self.int8 = match precision {
            Precision::F32 => None,
            Precision::Int8 => Some(Int8Layers {
                blocks: self
                    .blocks
                    .iter()
                    .map(|(conv1, conv2)| {
                        (Int8Weights::new(&conv1.weight, 9), Int8Weights::new(&conv2.weight, 9))
                    })
                    .collect(),
                policy_conv: Int8Weights::new(&self.policy_conv.weight, 1),
                policy_fc: Int8Weights::new(&self.policy_fc.weight, 1),
                value_conv: Int8Weights::new(&self.value_conv.weight, 1),
                value_fc1: Int8Weights::new(&self.value_fc1.weight, 1),
            }),
        };
        Ok(self)
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
            let Scratch { x, branch, tmp, gathered, head, hidden, bytes, scales } = scratch;
            let mut products = Products { kernel: self.kernel, gathered, bytes, scales };
            let int8 = self.int8.as_ref();

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
            // The stem reads the planes as they are, in f32 at every precision.
            products.convolve(&self.stem, None, &tmp[..rows * INPUT_PLANES], rows, x);
            relu(x);

            let branch = resized(branch, rows * c);
            let tmp = resized(tmp, rows * c);
            for (index, (conv1, conv2)) in self.blocks.iter().enumerate() {
                let (int8_1, int8_2) = match int8 {
                    Some(layers) => (Some(&layers.blocks[index].0), Some(&layers.blocks[index].1)),
                    None => (None, None),
                };
                products.convolve(conv1, int8_1, x, rows, tmp);
                relu(tmp);
                products.convolve(conv2, int8_2, tmp, rows, branch);
                for (x, b) in x.iter_mut().zip(branch.iter()) {
                    *x = (*x + b).max(0.0);
                }
            }

            let pc = self.policy_conv.c_out;
            let head_buffer = resized(head, rows * pc.max(self.value_conv.c_out));
            let policy_map = &mut head_buffer[..rows * pc];
            products.convolve(&self.policy_conv, int8.map(|l| &l.policy_conv), x, rows, policy_map);
            relu(policy_map);
            let logits = policy.as_slice_mut().expect("contiguous policy rows");
            products.affine(&self.policy_fc, int8.map(|l| &l.policy_fc), policy_map, positions, logits);

            let vc = self.value_conv.c_out;
            let value_map = &mut head_buffer[..rows * vc];
            products.convolve(&self.value_conv, int8.map(|l| &l.value_conv), x, rows, value_map);
            relu(value_map);
            let width = self.value_fc1.bias.len();
            let hidden = resized(hidden, positions * width);
            products.affine(&self.value_fc1, int8.map(|l| &l.value_fc1), value_map, positions, hidden);
            relu(hidden);
            let out = wdl.as_slice_mut().expect("contiguous WDL rows");
            // Three outputs: the last layer costs nothing in f32 and keeps the value's resolution.
            products.affine(&self.value_fc2, None, hidden, positions, out);
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
            let burn = BatchEvaluator::new(net, device.clone(), 0).unwrap();
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

    #[test]
    fn every_kernel_gives_the_same_network_outputs() {
        let device = Device::flex();
        let net = perturbed(PolicyValueNet::new(&ModelConfig::new(2, 32), &device).unwrap(), &device);
        let best = CpuNet::from_net(&net.valid()).unwrap();
        assert_eq!(best.kernel(), Kernel::best());
        let x = inputs(11, 5);
        let (policy, wdl) = best.forward(x.as_slice().unwrap()).unwrap();
        for kernel in Kernel::ALL {
            let Ok(other) = best.clone().with_kernel(kernel) else {
                assert!(!kernel.is_supported());
                continue;
            };
            let (p, v) = other.forward(x.as_slice().unwrap()).unwrap();
            if kernel == Kernel::Portable {
                let worst = policy.iter().zip(&p).chain(wdl.iter().zip(&v)).map(|(a, b)| (a - b).abs());
                assert!(worst.fold(0.0f32, f32::max) < 1e-3, "{kernel:?}");
            } else {
                assert_eq!((&policy, &wdl), (&p, &v), "{kernel:?} is bit-identical to {:?}", best.kernel());
            }
        }
    }

    /// What 8-bit rounding costs a network whose batch-norm statistics are far from their
    /// initial values: small against the spread of its outputs, with the same best move on
    /// nearly every position, and each position's outputs independent of its batch.
    #[test]
    fn int8_outputs_stay_near_the_f32_ones_and_do_not_depend_on_the_batch() {
        if !Precision::Int8.is_supported() {
            eprintln!("skipped: this CPU has no AVX-512 VNNI");
            return;
        }
        let device = Device::flex();
        let net = perturbed(PolicyValueNet::new(&ModelConfig::new(3, 32), &device).unwrap(), &device);
        let exact = CpuNet::from_net(&net.valid()).unwrap();
        let int8 = exact.clone().with_precision(Precision::Int8).unwrap();
        assert_eq!((exact.precision(), int8.precision()), (Precision::F32, Precision::Int8));
        let batch = 40;
        let x = inputs(batch, 9);
        let (policy, wdl) = exact.forward(x.as_slice().unwrap()).unwrap();
        let (q_policy, q_wdl) = int8.forward(x.as_slice().unwrap()).unwrap();
        let spread = |a: &Array2<f32>| {
            let mean = a.mean().unwrap();
            (a.mapv(|v| (v - mean).powi(2)).mean().unwrap()).sqrt()
        };
        let error = |a: &Array2<f32>, b: &Array2<f32>| ((a - b).mapv(|v| v * v).mean().unwrap()).sqrt();
        assert!(
            error(&policy, &q_policy) < 0.05 * spread(&policy),
            "policy error {}",
            error(&policy, &q_policy)
        );
        assert!(error(&wdl, &q_wdl) < 0.05 * spread(&wdl).max(0.1), "value error {}", error(&wdl, &q_wdl));
        let best = |row: ndarray::ArrayView1<'_, f32>| {
            row.iter().enumerate().fold((0, f32::MIN), |m, (i, &v)| if v > m.1 { (i, v) } else { m }).0
        };
        let agree =
            policy.outer_iter().zip(q_policy.outer_iter()).filter(|(a, b)| best(*a) == best(*b)).count();
        assert!(agree * 10 >= batch * 9, "the same best move on {agree} of {batch} positions");

        let (one_policy, one_wdl) = int8.forward(&x.as_slice().unwrap()[..INPUT_SIZE * 3]).unwrap();
        assert_eq!(one_policy.view(), q_policy.slice(ndarray::s![..3, ..]));
        assert_eq!(one_wdl.view(), q_wdl.slice(ndarray::s![..3, ..]));
        assert!(exact.with_precision(Precision::F32).unwrap().int8.is_none());
    }
}
