//! The forward and backward pass of a training step on the host, in position-major layout with
//! large matrix products, instead of through burn's autodiff graph.
//!
//! burn's autodiff records every element-wise operation of the network (each ReLU, each add,
//! each reshape of the heads) as a node and walks them back one by one; at the sizes this
//! project trains on the CPU that bookkeeping costs more than the convolutions. Here each layer
//! is a few register-tiled products over the whole batch and a few fused loops, the activations
//! live in one reused [`Workspace`], and only the optimiser step stays with burn, so checkpoints
//! and optimiser state are exactly what they were.
//!
//! Layout: activations are `[rows, channels]` with `rows = batch · 90` (sample-major, then
//! square), CpuNet's layout, and a 3×3 convolution's weights are `[9 · c_in, c_out]` (tap-major,
//! then input channel). No im2col copy is made: the forward pass and the input gradient run in
//! CpuNet's kernels ([`add_product`]), which read a row's nine taps where they lie (the input
//! gradient is the 3×3 convolution of the output gradient with each tap's weights transposed
//! and the taps mirrored), and the weight gradient in its own kernel
//! (`host_gradients/weight_gradient.rs`). The dense head layers and the 1×1 convolutions'
//! gradients use `gemm`. Work is split over rayon in chunks of a fixed number of positions
//! and partial sums are added in chunk order, so the gradients do not depend on the number of
//! threads.

use burn::module::Param;
use burn::nn::BatchNorm;
use burn::nn::Linear;
use burn::optim::GradientsParams;
use burn::prelude::*;
use rayon::prelude::*;

use ndarray::Array2;

use crate::cpu_inference::{Kernel, Matrix, Taps, add_product};
use crate::encoding::{INPUT_PLANES, PLANE_SIZE};
use crate::model::{ConvNorm, PolicyValueNet};
use crate::policy::POLICY_SIZE;
use crate::train::{TrainBatch, TrainError};

mod weight_gradient;
use weight_gradient::weight_gradient;

/// Positions per unit of parallel work: whole boards, so a convolution's taps never leave it.
const CHUNK_POSITIONS: usize = 8;
const CHUNK_ROWS: usize = CHUNK_POSITIONS * PLANE_SIZE;

/// A read-only matrix operand: element `(i, j)` is `data[i · row_stride + j · col_stride]`, so a
/// transpose is a swap of strides.
#[derive(Clone, Copy)]
struct Operand<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'a> Operand<'a> {
    /// A row-major `[rows, cols]` matrix.
    fn new(data: &'a [f32], rows: usize, cols: usize) -> Operand<'a> {
        Operand { data, rows, cols, row_stride: cols, col_stride: 1 }
    }

    fn t(self) -> Operand<'a> {
        Operand {
            data: self.data,
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
        }
    }

    fn reaches_within(&self) -> bool {
        self.rows == 0
            || self.cols == 0
            || (self.rows - 1) * self.row_stride + (self.cols - 1) * self.col_stride < self.data.len()
    }
}

/// `out = a · b` (or `out += a · b` when `accumulate`), `out` row-major `[a.rows, b.cols]`.
fn multiply(out: &mut [f32], accumulate: bool, a: Operand<'_>, b: Operand<'_>) {
    assert_eq!(a.cols, b.rows, "inner dimensions of a product");
    assert!(a.reaches_within() && b.reaches_within(), "a product's operand is shorter than its shape");
    assert!(out.len() >= a.rows * b.cols, "a product's output is shorter than its shape");
    if a.rows == 0 || b.cols == 0 {
        return;
    }
    if a.cols == 0 {
        if !accumulate {
            out[..a.rows * b.cols].fill(0.0);
        }
        return;
    }
    // SAFETY: the asserts above keep every index the product reads or writes inside the three
    // slices; `out` is borrowed mutably, so it cannot alias the operands.
    #[allow(unsafe_code)]
    unsafe {
        gemm::gemm(
            a.rows,
            b.cols,
            a.cols,
            out.as_mut_ptr(),
            1,
            b.cols as isize,
            accumulate,
            a.data.as_ptr(),
            a.col_stride as isize,
            a.row_stride as isize,
            b.data.as_ptr(),
            b.col_stride as isize,
            b.row_stride as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

fn resized(buffer: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buffer.len() < len {
        buffer.resize(len, 0.0);
    }
    &mut buffer[..len]
}

fn values<const D: usize>(tensor: Tensor<D>) -> Result<Vec<f32>, TrainError> {
    tensor.into_data().try_into_vec::<f32>().map_err(|e| TrainError::Backend(format!("{e:?}")))
}

/// Batch-norm parameters of one layer, as the host pass uses them.
struct HostNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    epsilon: f64,
}

/// A convolution (1×1 or 3×3, "same" padding) with optional bias and batch norm, weights as
/// `[taps · c_in, c_out]`.
struct HostConv {
    taps: usize,
    c_in: usize,
    c_out: usize,
    weight: Array2<f32>,
    /// A 3×3 convolution's input gradient is itself a 3×3 convolution of the output gradient,
    /// with each tap's weights transposed and the taps mirrored (tap `t` reads the square that
    /// tap `8 − t` reaches from it): `[9 · c_out, c_in]`. Empty for a 1×1 convolution.
    transposed: Array2<f32>,
    bias: Option<Vec<f32>>,
    norm: Option<HostNorm>,
}

impl HostConv {
    fn read(layer: &ConvNorm) -> Result<HostConv, TrainError> {
        let [c_out, c_in, kernel, _] = layer.conv.weight.val().dims();
        let taps = kernel * kernel;
        let raw = values(layer.conv.weight.val())?;
        let weight = Array2::from_shape_fn((taps * c_in, c_out), |(row, o)| {
            let (t, i) = (row / c_in, row % c_in);
            raw[(o * c_in + i) * taps + t]
        });
        let transposed = if taps == 9 {
            Array2::from_shape_fn((taps * c_out, c_in), |(row, i)| {
                let (t, o) = (row / c_out, row % c_out);
                weight[[(8 - t) * c_in + i, o]]
            })
        } else {
            Array2::zeros((0, c_in))
        };
        let bias = match &layer.conv.bias {
            Some(bias) => Some(values(bias.val())?),
            None => None,
        };
        let norm = match &layer.norm {
            Some(norm) => Some(HostNorm {
                gamma: values(norm.gamma.val())?,
                beta: values(norm.beta.val())?,
                epsilon: norm.epsilon,
            }),
            None => None,
        };
        Ok(HostConv { taps, c_in, c_out, weight, transposed, bias, norm })
    }
}

/// A linear layer `[d_in, d_out]`; a layer that reads a head's planes has its rows re-indexed
/// from burn's `channel · 90 + square` to the host's `square · channels + channel`.
struct HostDense {
    d_in: usize,
    d_out: usize,
    weight: Vec<f32>,
    bias: Vec<f32>,
    plane_channels: Option<usize>,
}

/// Row `row` of burn's weight for host row `host_row` of a plane-reading layer.
fn burn_row(host_row: usize, plane_channels: Option<usize>) -> usize {
    match plane_channels {
        Some(c) => (host_row % c) * PLANE_SIZE + host_row / c,
        None => host_row,
    }
}

impl HostDense {
    fn read(layer: &Linear, plane_channels: Option<usize>) -> Result<HostDense, TrainError> {
        let [d_in, d_out] = layer.weight.val().dims();
        let raw = values(layer.weight.val())?;
        let mut weight = vec![0.0; d_in * d_out];
        for (row, out) in weight.chunks_exact_mut(d_out).enumerate() {
            let from = burn_row(row, plane_channels) * d_out;
            out.copy_from_slice(&raw[from..from + d_out]);
        }
        let bias = match &layer.bias {
            Some(bias) => values(bias.val())?,
            None => vec![0.0; d_out],
        };
        Ok(HostDense { d_in, d_out, weight, bias, plane_channels })
    }
}

/// The network's weights on the host.
struct HostNet {
    stem: HostConv,
    blocks: Vec<(HostConv, HostConv, Option<f32>)>,
    policy_conv: HostConv,
    policy_fc: HostDense,
    value_conv: HostConv,
    value_fc1: HostDense,
    value_fc2: HostDense,
}

impl HostNet {
    fn read(net: &PolicyValueNet) -> Result<HostNet, TrainError> {
        let blocks = net
            .blocks
            .iter()
            .map(|block| {
                let gain = match &block.skip_gain {
                    Some(gain) => Some(values(gain.val())?.first().copied().unwrap_or(0.0)),
                    None => None,
                };
                Ok((HostConv::read(&block.conv1)?, HostConv::read(&block.conv2)?, gain))
            })
            .collect::<Result<Vec<_>, TrainError>>()?;
        let policy_conv = HostConv::read(&net.policy_conv)?;
        let value_conv = HostConv::read(&net.value_conv)?;
        Ok(HostNet {
            stem: HostConv::read(&net.stem)?,
            blocks,
            policy_fc: HostDense::read(&net.policy_fc, Some(policy_conv.c_out))?,
            value_fc1: HostDense::read(&net.value_fc1, Some(value_conv.c_out))?,
            value_fc2: HostDense::read(&net.value_fc2, None)?,
            policy_conv,
            value_conv,
        })
    }
}

/// What a convolution keeps from its forward pass for its backward pass, and its gradients.
#[derive(Default)]
struct ConvCache {
    /// The normalised pre-activation `x̂` with batch norm, else unused.
    normalized: Vec<f32>,
    /// `1/√(var + ε)` per output channel, and the batch's mean and (biased) variance.
    inv_std: Vec<f32>,
    mean: Vec<f32>,
    variance: Vec<f32>,
    /// The layer's output: after the norm and, where the layer has one, its ReLU.
    output: Vec<f32>,
    /// Gradient with respect to the pre-norm output.
    grad_pre: Vec<f32>,
    grad_weight: Vec<f32>,
    grad_bias: Vec<f32>,
    grad_gamma: Vec<f32>,
    grad_beta: Vec<f32>,
    /// One `[taps · c_in, c_out]` partial weight gradient per chunk.
    partials: Vec<f32>,
}

/// A dense layer's saved output and gradients.
#[derive(Default)]
struct DenseCache {
    output: Vec<f32>,
    /// `[d_out, d_in]`.
    grad_weight_t: Vec<f32>,
    grad_bias: Vec<f32>,
}

/// One residual block's buffers.
#[derive(Default)]
struct BlockCache {
    conv1: ConvCache,
    conv2: ConvCache,
    /// The block's output `relu(x + g · branch)`.
    output: Vec<f32>,
    grad_gain: f32,
}

/// Every buffer of a host training step, kept between steps so that a step allocates nothing
/// once the first has sized them.
#[derive(Default)]
pub(crate) struct Workspace {
    input: Vec<f32>,
    stem: ConvCache,
    blocks: Vec<BlockCache>,
    policy_conv: ConvCache,
    policy_fc: DenseCache,
    value_conv: ConvCache,
    value_fc1: DenseCache,
    value_fc2: DenseCache,
    grad_policy_logits: Vec<f32>,
    grad_wdl: Vec<f32>,
    grad_hidden: Vec<f32>,
    grad_policy_planes: Vec<f32>,
    grad_value_planes: Vec<f32>,
    grad_trunk: Vec<f32>,
    grad_branch: Vec<f32>,
    grad_inner: Vec<f32>,
}

/// The losses and logits of a host step, and the batch statistics of every batch norm.
pub(crate) struct HostStep {
    pub(crate) policy_loss: f32,
    pub(crate) value_loss: f32,
    pub(crate) policy_logits: Vec<f32>,
    pub(crate) wdl_logits: Vec<f32>,
}

/// Per-channel sums of `values` (`[rows, channels]`) of `f(value, channel)`, in f64, chunk by
/// chunk in a fixed order.
fn channel_sums(values: &[f32], channels: usize, f: impl Fn(f32, usize) -> f64 + Sync) -> Vec<f64> {
    let partials: Vec<Vec<f64>> = values
        .par_chunks(CHUNK_ROWS * channels)
        .map(|chunk| {
            let mut sums = vec![0.0f64; channels];
            for row in chunk.chunks_exact(channels) {
                for (c, (&v, s)) in row.iter().zip(sums.iter_mut()).enumerate() {
                    *s += f(v, c);
                }
            }
            sums
        })
        .collect();
    add_in_order(partials, channels)
}

/// The sum of per-chunk partial sums, added in chunk order (so independent of the threads).
fn add_in_order(partials: Vec<Vec<f64>>, channels: usize) -> Vec<f64> {
    let mut total = vec![0.0f64; channels];
    for partial in partials {
        for (t, p) in total.iter_mut().zip(partial) {
            *t += p;
        }
    }
    total
}

fn relu_in_place(values: &mut [f32]) {
    values.par_chunks_mut(CHUNK_ROWS * 32).for_each(|chunk| {
        for v in chunk {
            *v = v.max(0.0);
        }
    });
}

/// Forward pass of one convolution: `cache.output = norm(input ⋆ weight + bias)`, through a
/// ReLU when `relu` (applied in the normalising pass, which has the values in hand).
fn conv_forward(layer: &HostConv, input: &[f32], rows: usize, cache: &mut ConvCache, relu: bool) {
    let (c_in, c_out) = (layer.c_in, layer.c_out);
    let kernel = Kernel::best();
    let output = resized(&mut cache.output, rows * c_out);
    output
        .par_chunks_mut(CHUNK_ROWS * c_out)
        .zip(input[..rows * c_in].par_chunks(CHUNK_ROWS * c_in))
        .for_each(|(out, input)| {
            let chunk_rows = out.len() / c_out;
            match &layer.bias {
                Some(bias) => out.chunks_exact_mut(c_out).for_each(|row| row.copy_from_slice(bias)),
                None => out.fill(0.0),
            }
            // Only the portable kernel gathers rows into a scratch buffer.
            let mut gathered = Vec::new();
            if layer.taps == 9 {
                let taps = Taps { input, c_in };
                add_product(kernel, taps, chunk_rows, &layer.weight, out, &mut gathered);
            } else {
                let rows = Matrix { values: input, depth: c_in };
                add_product(kernel, rows, chunk_rows, &layer.weight, out, &mut gathered);
            }
        });
    let Some(norm) = &layer.norm else {
        if relu {
            relu_in_place(output);
        }
        return;
    };
    let count = rows as f64;
    let mean: Vec<f64> =
        channel_sums(output, c_out, |v, _| f64::from(v)).into_iter().map(|s| s / count).collect();
    let variance: Vec<f64> = channel_sums(output, c_out, |v, c| (f64::from(v) - mean[c]).powi(2))
        .into_iter()
        .map(|s| s / count)
        .collect();
    cache.mean = mean.iter().map(|&m| m as f32).collect();
    cache.variance = variance.iter().map(|&v| v as f32).collect();
    cache.inv_std = variance.iter().map(|&v| (1.0 / (v + norm.epsilon).sqrt()) as f32).collect();
    let normalized = resized(&mut cache.normalized, rows * c_out);
    let (mean, inv_std) = (&cache.mean, &cache.inv_std);
    normalized.par_chunks_mut(CHUNK_ROWS * c_out).zip(output.par_chunks_mut(CHUNK_ROWS * c_out)).for_each(
        |(normalized, output)| {
            for (n_row, o_row) in normalized.chunks_exact_mut(c_out).zip(output.chunks_exact_mut(c_out)) {
                for c in 0..c_out {
                    let x_hat = (o_row[c] - mean[c]) * inv_std[c];
                    n_row[c] = x_hat;
                    let value = norm.gamma[c] * x_hat + norm.beta[c];
                    o_row[c] = if relu { value.max(0.0) } else { value };
                }
            }
        },
    );
}

/// Backward pass of one convolution, given the gradient with respect to its output in
/// `grad_output`: fills the parameter gradients, and `grad_input` (`= ` or `+=` by
/// `accumulate`) unless it is `None`.
fn conv_backward(
    layer: &HostConv,
    input: &[f32],
    rows: usize,
    cache: &mut ConvCache,
    grad_output: &[f32],
    grad_input: Option<(&mut [f32], bool)>,
) {
    let (c_in, c_out, depth) = (layer.c_in, layer.c_out, layer.taps * layer.c_in);
    let grad_output = &grad_output[..rows * c_out];
    let grad_pre = resized(&mut cache.grad_pre, rows * c_out);
    match &layer.norm {
        Some(norm) => {
            let normalized = &cache.normalized[..rows * c_out];
            // β's and γ's gradients in one pass: per chunk `[Σ g | Σ g · x̂]`.
            let partials: Vec<Vec<f64>> = grad_output
                .par_chunks(CHUNK_ROWS * c_out)
                .zip(normalized.par_chunks(CHUNK_ROWS * c_out))
                .map(|(g, n)| {
                    let mut sums = vec![0.0f64; 2 * c_out];
                    let (beta_sums, gamma_sums) = sums.split_at_mut(c_out);
                    for (g_row, n_row) in g.chunks_exact(c_out).zip(n.chunks_exact(c_out)) {
                        for c in 0..c_out {
                            let g = f64::from(g_row[c]);
                            beta_sums[c] += g;
                            gamma_sums[c] += g * f64::from(n_row[c]);
                        }
                    }
                    sums
                })
                .collect();
            let mut sums = add_in_order(partials, 2 * c_out);
            let gamma_grad = sums.split_off(c_out);
            let beta_grad = sums;
            let count = rows as f64;
            let mean_grad: Vec<f32> = beta_grad.iter().map(|&s| (s / count) as f32).collect();
            let mean_projected: Vec<f32> = gamma_grad.iter().map(|&s| (s / count) as f32).collect();
            let scale: Vec<f32> = norm.gamma.iter().zip(&cache.inv_std).map(|(g, s)| g * s).collect();
            grad_pre
                .par_chunks_mut(CHUNK_ROWS * c_out)
                .zip(grad_output.par_chunks(CHUNK_ROWS * c_out))
                .zip(normalized.par_chunks(CHUNK_ROWS * c_out))
                .for_each(|((pre, g), n)| {
                    for ((p_row, g_row), n_row) in
                        pre.chunks_exact_mut(c_out).zip(g.chunks_exact(c_out)).zip(n.chunks_exact(c_out))
                    {
                        for c in 0..c_out {
                            p_row[c] = scale[c] * (g_row[c] - mean_grad[c] - n_row[c] * mean_projected[c]);
                        }
                    }
                });
            cache.grad_gamma = gamma_grad.iter().map(|&v| v as f32).collect();
            cache.grad_beta = beta_grad.iter().map(|&v| v as f32).collect();
        }
        None => grad_pre.copy_from_slice(grad_output),
    }
    let grad_pre = &cache.grad_pre[..rows * c_out];
    if layer.bias.is_some() {
        cache.grad_bias =
            channel_sums(grad_pre, c_out, |g, _| f64::from(g)).iter().map(|&v| v as f32).collect();
    }
    // The weight gradient `inputᵀ · grad_pre` (of the taps, for 3×3), one partial a chunk.
    let input = &input[..rows * c_in];
    let chunks = rows.div_ceil(CHUNK_ROWS);
    let block = depth * c_out;
    let partials = resized(&mut cache.partials, chunks * block);
    let kernel = Kernel::best();
    partials.par_chunks_mut(block).enumerate().for_each(|(chunk, partial)| {
        let first = chunk * CHUNK_ROWS;
        let chunk_rows = CHUNK_ROWS.min(rows - first);
        let input = &input[first * c_in..(first + chunk_rows) * c_in];
        let grad = &grad_pre[first * c_out..(first + chunk_rows) * c_out];
        if layer.taps == 9 {
            weight_gradient(kernel, input, c_in, grad, c_out, chunk_rows, partial);
        } else {
            multiply(
                partial,
                false,
                Operand::new(input, chunk_rows, c_in).t(),
                Operand::new(grad, chunk_rows, c_out),
            );
        }
    });
    let grad_weight = resized(&mut cache.grad_weight, block);
    grad_weight.par_chunks_mut(c_out.max(1) * 8).enumerate().for_each(|(piece, out)| {
        let start = piece * c_out.max(1) * 8;
        out.fill(0.0);
        for partial in cache.partials[..chunks * block].chunks_exact(block) {
            let len = out.len();
            for (o, p) in out.iter_mut().zip(&partial[start..start + len]) {
                *o += p;
            }
        }
    });
    let Some((grad_input, accumulate)) = grad_input else { return };
    if layer.taps == 9 {
        let kernel = Kernel::best();
        grad_input[..rows * c_in]
            .par_chunks_mut(CHUNK_ROWS * c_in)
            .zip(grad_pre.par_chunks(CHUNK_ROWS * c_out))
            .for_each(|(out, grad)| {
                if !accumulate {
                    out.fill(0.0);
                }
                let chunk_rows = grad.len() / c_out;
                let taps = Taps { input: grad, c_in: c_out };
                add_product(kernel, taps, chunk_rows, &layer.transposed, out, &mut Vec::new());
            });
    } else {
        grad_input[..rows * c_in]
            .par_chunks_mut(CHUNK_ROWS * c_in)
            .zip(grad_pre.par_chunks(CHUNK_ROWS * c_out))
            .for_each(|(out, grad)| {
                let chunk_rows = grad.len() / c_out;
                multiply(
                    out,
                    accumulate,
                    Operand::new(grad, chunk_rows, c_out),
                    Operand::new(layer.weight.as_slice().unwrap_or(&[]), c_in, c_out).t(),
                );
            });
    }
}

/// Samples per chunk of a dense layer's row-parallel products.
const DENSE_CHUNK: usize = 16;
/// Output columns per chunk of a dense layer's weight gradient.
const DENSE_COLUMNS: usize = 64;

fn dense_forward(layer: &HostDense, input: &[f32], samples: usize, output: &mut Vec<f32>) {
    let (d_in, d_out) = (layer.d_in, layer.d_out);
    let output = resized(output, samples * d_out);
    output
        .par_chunks_mut(DENSE_CHUNK * d_out)
        .zip(input[..samples * d_in].par_chunks(DENSE_CHUNK * d_in))
        .for_each(|(out, left)| {
            let n = out.len() / d_out;
            for row in out.chunks_exact_mut(d_out) {
                row.copy_from_slice(&layer.bias);
            }
            multiply(out, true, Operand::new(left, n, d_in), Operand::new(&layer.weight, d_in, d_out));
        });
}

/// Fills the layer's gradients from `grad_output` and writes `grad_input` unless `None`.
fn dense_backward(
    layer: &HostDense,
    input: &[f32],
    samples: usize,
    cache: &mut DenseCache,
    grad_output: &[f32],
    grad_input: Option<&mut Vec<f32>>,
) {
    let (d_in, d_out) = (layer.d_in, layer.d_out);
    let input = &input[..samples * d_in];
    let grad_output = &grad_output[..samples * d_out];
    cache.grad_bias = (0..d_out)
        .map(|c| (0..samples).map(|s| f64::from(grad_output[s * d_out + c])).sum::<f64>() as f32)
        .collect();
    // The weight gradient transposed, `grad_outputᵀ · input` (`[d_out, d_in]`), split by output
    // columns so that every entry is one whole sum in a fixed order.
    let grad_weight_t = resized(&mut cache.grad_weight_t, d_out * d_in);
    grad_weight_t.par_chunks_mut(DENSE_COLUMNS * d_in).enumerate().for_each(|(piece, out)| {
        let first = piece * DENSE_COLUMNS;
        let width = out.len() / d_in;
        let left = Operand {
            data: &grad_output[first..],
            rows: width,
            cols: samples,
            row_stride: 1,
            col_stride: d_out,
        };
        multiply(out, false, left, Operand::new(input, samples, d_in));
    });
    let Some(grad_input) = grad_input else { return };
    let grad_input = resized(grad_input, samples * d_in);
    grad_input.par_chunks_mut(DENSE_CHUNK * d_in).zip(grad_output.par_chunks(DENSE_CHUNK * d_out)).for_each(
        |(out, grad)| {
            let n = grad.len() / d_out;
            multiply(out, false, Operand::new(grad, n, d_out), Operand::new(&layer.weight, d_in, d_out).t());
        },
    );
}

/// `grad *= (activation > 0)`: the gradient through a ReLU, from its output.
fn relu_backward(grad: &mut [f32], activation: &[f32]) {
    grad.par_chunks_mut(CHUNK_ROWS * 32).zip(activation.par_chunks(CHUNK_ROWS * 32)).for_each(|(g, a)| {
        for (g, &a) in g.iter_mut().zip(a) {
            if a <= 0.0 {
                *g = 0.0;
            }
        }
    });
}

/// Weighted cross-entropy of `logits` (`[samples, width]`) against `target`, its gradient with
/// respect to the logits scaled by `factor` into `grad`, and the loss (the weighted mean).
fn cross_entropy(
    logits: &[f32],
    target: &[f32],
    weights: &[f32],
    width: usize,
    factor: f32,
    grad: &mut [f32],
) -> f32 {
    let total: f64 = weights.iter().map(|&w| f64::from(w)).sum();
    let scale = if total > 0.0 { 1.0 / total } else { 0.0 };
    let losses: Vec<f64> = grad
        .par_chunks_mut(width)
        .zip(logits.par_chunks(width))
        .zip(target.par_chunks(width))
        .zip(weights.par_iter())
        .map(|(((grad, row), target), &weight)| {
            let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
            let mut sum = 0.0f64;
            for (g, &v) in grad.iter_mut().zip(row) {
                let e = f64::from(v - max).exp();
                *g = e as f32;
                sum += e;
            }
            let log_sum = sum.ln();
            let target_sum: f64 = target.iter().map(|&t| f64::from(t)).sum();
            let mut dot = 0.0f64;
            let step = (scale * f64::from(weight) * f64::from(factor)) as f32;
            for ((g, &v), &t) in grad.iter_mut().zip(row).zip(target) {
                dot += f64::from(t) * (f64::from(v - max) - log_sum);
                let probability = (f64::from(*g) / sum) as f32;
                *g = step * (probability * target_sum as f32 - t);
            }
            -f64::from(weight) * dot
        })
        .collect();
    (losses.iter().sum::<f64>() * scale) as f32
}

impl Workspace {
    /// Forward and backward pass of `net` on `batch`; the gradients are left in the workspace
    /// for [`Workspace::gradients`].
    fn run(&mut self, net: &HostNet, batch: &TrainBatch, value_loss_weight: f32) -> HostStep {
        let samples = batch.len();
        let rows = samples * PLANE_SIZE;
        // Input planes `[samples, planes, 90]` to position-major `[rows, planes]`.
        let inputs = batch.inputs.as_standard_layout();
        let inputs = inputs.as_slice().unwrap_or(&[]);
        let input = resized(&mut self.input, rows * INPUT_PLANES);
        input
            .par_chunks_mut(PLANE_SIZE * INPUT_PLANES)
            .zip(inputs.par_chunks(PLANE_SIZE * INPUT_PLANES))
            .for_each(|(out, planes)| {
                for (square, row) in out.chunks_exact_mut(INPUT_PLANES).enumerate() {
                    for (plane, v) in row.iter_mut().enumerate() {
                        *v = planes[plane * PLANE_SIZE + square];
                    }
                }
            });
        let c = net.stem.c_out;

        // Forward.
        conv_forward(&net.stem, &self.input, rows, &mut self.stem, true);
        self.blocks.resize_with(net.blocks.len(), BlockCache::default);
        for (index, (conv1, conv2, gain)) in net.blocks.iter().enumerate() {
            let (before, after) = self.blocks.split_at_mut(index);
            let input: &[f32] = match before.last() {
                Some(previous) => &previous.output,
                None => &self.stem.output,
            };
            let cache = &mut after[0];
            conv_forward(conv1, input, rows, &mut cache.conv1, true);
            conv_forward(conv2, &cache.conv1.output, rows, &mut cache.conv2, false);
            let gain = gain.unwrap_or(1.0);
            let output = resized(&mut cache.output, rows * c);
            output
                .par_chunks_mut(CHUNK_ROWS * c)
                .zip(input[..rows * c].par_chunks(CHUNK_ROWS * c))
                .zip(cache.conv2.output[..rows * c].par_chunks(CHUNK_ROWS * c))
                .for_each(|((out, x), branch)| {
                    for ((o, &x), &b) in out.iter_mut().zip(x).zip(branch) {
                        *o = (x + gain * b).max(0.0);
                    }
                });
        }
        let trunk: &[f32] = match self.blocks.last() {
            Some(last) => &last.output,
            None => &self.stem.output,
        };
        conv_forward(&net.policy_conv, trunk, rows, &mut self.policy_conv, true);
        dense_forward(&net.policy_fc, &self.policy_conv.output, samples, &mut self.policy_fc.output);
        conv_forward(&net.value_conv, trunk, rows, &mut self.value_conv, true);
        dense_forward(&net.value_fc1, &self.value_conv.output, samples, &mut self.value_fc1.output);
        relu_in_place(&mut self.value_fc1.output[..samples * net.value_fc1.d_out]);
        dense_forward(&net.value_fc2, &self.value_fc1.output, samples, &mut self.value_fc2.output);

        // Losses and their gradients with respect to the logits.
        let policy_weight = batch.weights(&batch.policy_weight);
        let value_weight = batch.weights(&batch.value_weight);
        let policy_target = batch.policy.as_standard_layout();
        let wdl_target = batch.wdl.as_standard_layout();
        let grad_policy = resized(&mut self.grad_policy_logits, samples * POLICY_SIZE);
        let policy_loss = cross_entropy(
            &self.policy_fc.output[..samples * POLICY_SIZE],
            policy_target.as_slice().unwrap_or(&[]),
            &policy_weight,
            POLICY_SIZE,
            1.0,
            grad_policy,
        );
        let grad_wdl = resized(&mut self.grad_wdl, samples * 3);
        let value_loss = cross_entropy(
            &self.value_fc2.output[..samples * 3],
            wdl_target.as_slice().unwrap_or(&[]),
            &value_weight,
            3,
            value_loss_weight,
            grad_wdl,
        );

        // Backward: the value head.
        dense_backward(
            &net.value_fc2,
            &self.value_fc1.output,
            samples,
            &mut self.value_fc2,
            &self.grad_wdl,
            Some(&mut self.grad_hidden),
        );
        relu_backward(&mut self.grad_hidden[..samples * net.value_fc1.d_out], &self.value_fc1.output);
        dense_backward(
            &net.value_fc1,
            &self.value_conv.output,
            samples,
            &mut self.value_fc1,
            &self.grad_hidden,
            Some(&mut self.grad_value_planes),
        );
        let value_c = net.value_conv.c_out;
        relu_backward(&mut self.grad_value_planes[..rows * value_c], &self.value_conv.output);
        // The policy head.
        dense_backward(
            &net.policy_fc,
            &self.policy_conv.output,
            samples,
            &mut self.policy_fc,
            &self.grad_policy_logits,
            Some(&mut self.grad_policy_planes),
        );
        let policy_c = net.policy_conv.c_out;
        relu_backward(&mut self.grad_policy_planes[..rows * policy_c], &self.policy_conv.output);
        // Both heads read the trunk's output: their input gradients add up.
        let trunk: &[f32] = match self.blocks.last() {
            Some(last) => &last.output,
            None => &self.stem.output,
        };
        let grad_trunk = resized(&mut self.grad_trunk, rows * c);
        conv_backward(
            &net.value_conv,
            trunk,
            rows,
            &mut self.value_conv,
            &self.grad_value_planes,
            Some((&mut *grad_trunk, false)),
        );
        conv_backward(
            &net.policy_conv,
            trunk,
            rows,
            &mut self.policy_conv,
            &self.grad_policy_planes,
            Some((grad_trunk, true)),
        );

        // The trunk, last block first; `grad_trunk` holds the gradient of the current block's
        // output.
        for index in (0..net.blocks.len()).rev() {
            let (conv1, conv2, gain) = &net.blocks[index];
            let (before, after) = self.blocks.split_at_mut(index);
            let input: &[f32] = match before.last() {
                Some(previous) => &previous.output,
                None => &self.stem.output,
            };
            let cache = &mut after[0];
            // Through the final ReLU (masking `grad_trunk` in the same pass): d(x + g·b).
            let gain_value = gain.unwrap_or(1.0);
            let grad_branch = resized(&mut self.grad_branch, rows * c);
            let gain_partials: Vec<f64> = grad_branch
                .par_chunks_mut(CHUNK_ROWS * c)
                .zip(self.grad_trunk[..rows * c].par_chunks_mut(CHUNK_ROWS * c))
                .zip(cache.conv2.output[..rows * c].par_chunks(CHUNK_ROWS * c))
                .zip(cache.output[..rows * c].par_chunks(CHUNK_ROWS * c))
                .map(|(((out, g), branch), activation)| {
                    let mut sum = 0.0f64;
                    for (((o, g), &b), &a) in out.iter_mut().zip(g).zip(branch).zip(activation) {
                        if a <= 0.0 {
                            *g = 0.0;
                        }
                        *o = gain_value * *g;
                        sum += f64::from(*g) * f64::from(b);
                    }
                    sum
                })
                .collect();
            cache.grad_gain = gain_partials.iter().sum::<f64>() as f32;
            let grad_inner = resized(&mut self.grad_inner, rows * c);
            conv_backward(
                conv2,
                &cache.conv1.output,
                rows,
                &mut cache.conv2,
                grad_branch,
                Some((grad_inner, false)),
            );
            relu_backward(&mut self.grad_inner[..rows * c], &cache.conv1.output);
            // The block's input gradient: the skip path (already in `grad_trunk`) plus conv1's.
            conv_backward(
                conv1,
                input,
                rows,
                &mut cache.conv1,
                &self.grad_inner,
                Some((&mut self.grad_trunk[..rows * c], true)),
            );
        }
        relu_backward(&mut self.grad_trunk[..rows * c], &self.stem.output);
        conv_backward(&net.stem, &self.input, rows, &mut self.stem, &self.grad_trunk, None);

        HostStep {
            policy_loss,
            value_loss,
            policy_logits: self.policy_fc.output[..samples * POLICY_SIZE].to_vec(),
            wdl_logits: self.value_fc2.output[..samples * 3].to_vec(),
        }
    }
}

/// Gradient tensors on the plain (non-autodiff) device, keyed by parameter id, as burn's
/// optimiser takes them.
struct Registrar<'a> {
    grads: GradientsParams,
    device: &'a Device,
}

impl Registrar<'_> {
    fn add<const D: usize>(&mut self, param: &Param<Tensor<D>>, values: Vec<f32>) {
        let shape = param.val().dims();
        self.grads.register(param.id, Tensor::<D>::from_data(TensorData::new(values, shape), self.device));
    }

    fn conv(&mut self, layer: &ConvNorm, host: &HostConv, cache: &ConvCache) {
        let (taps, c_in, c_out) = (host.taps, host.c_in, host.c_out);
        let mut weight = vec![0.0; taps * c_in * c_out];
        for o in 0..c_out {
            for i in 0..c_in {
                for t in 0..taps {
                    weight[(o * c_in + i) * taps + t] = cache.grad_weight[(t * c_in + i) * c_out + o];
                }
            }
        }
        self.add(&layer.conv.weight, weight);
        if let Some(bias) = &layer.conv.bias {
            self.add(bias, cache.grad_bias.clone());
        }
        if let Some(norm) = &layer.norm {
            self.add(&norm.gamma, cache.grad_gamma.clone());
            self.add(&norm.beta, cache.grad_beta.clone());
        }
    }

    fn dense(&mut self, layer: &Linear, host: &HostDense, cache: &DenseCache) {
        let (d_in, d_out) = (host.d_in, host.d_out);
        let mut weight = vec![0.0; d_in * d_out];
        for (col, values) in cache.grad_weight_t[..d_out * d_in].chunks_exact(d_in).enumerate() {
            for (row, &v) in values.iter().enumerate() {
                weight[burn_row(row, host.plane_channels) * d_out + col] = v;
            }
        }
        self.add(&layer.weight, weight);
        if let Some(bias) = &layer.bias {
            self.add(bias, cache.grad_bias.clone());
        }
    }
}

/// Writes the batch statistics of one layer into its running statistics, as burn's training
/// forward pass does.
fn update_running(norm: &BatchNorm, cache: &ConvCache, device: &Device) {
    let momentum = norm.momentum;
    let blend = |old: Tensor<1>, batch: &[f32]| -> Tensor<1> {
        let batch = Tensor::<1>::from_data(TensorData::new(batch.to_vec(), [batch.len()]), device);
        old.mul_scalar(1.0 - momentum).add(batch.mul_scalar(momentum)).detach()
    };
    norm.running_mean.update(blend(norm.running_mean.value_sync().to_device(device), &cache.mean));
    norm.running_var.update(blend(norm.running_var.value_sync().to_device(device), &cache.variance));
}

/// A training step's host pass over `net` (on its autodiff `device`): the gradients on the plain
/// device for burn's optimiser, the batch norms' running statistics updated in `net`, and the
/// losses and logits.
pub(crate) fn host_gradients(
    net: &PolicyValueNet,
    batch: &TrainBatch,
    value_loss_weight: f32,
    workspace: &mut Workspace,
    device: &Device,
) -> Result<(GradientsParams, HostStep), TrainError> {
    let host = HostNet::read(net)?;
    let step = workspace.run(&host, batch, value_loss_weight);
    let plain = device.clone().inner();
    let mut registrar = Registrar { grads: GradientsParams::new(), device: &plain };
    registrar.conv(&net.stem, &host.stem, &workspace.stem);
    for ((block, host_block), cache) in net.blocks.iter().zip(&host.blocks).zip(&workspace.blocks) {
        registrar.conv(&block.conv1, &host_block.0, &cache.conv1);
        registrar.conv(&block.conv2, &host_block.1, &cache.conv2);
        if let Some(gain) = &block.skip_gain {
            registrar.add(gain, vec![cache.grad_gain]);
        }
    }
    registrar.conv(&net.policy_conv, &host.policy_conv, &workspace.policy_conv);
    registrar.dense(&net.policy_fc, &host.policy_fc, &workspace.policy_fc);
    registrar.conv(&net.value_conv, &host.value_conv, &workspace.value_conv);
    registrar.dense(&net.value_fc1, &host.value_fc1, &workspace.value_fc1);
    registrar.dense(&net.value_fc2, &host.value_fc2, &workspace.value_fc2);
    let mut layers: Vec<(&ConvNorm, &ConvCache)> = vec![(&net.stem, &workspace.stem)];
    for (block, cache) in net.blocks.iter().zip(&workspace.blocks) {
        layers.push((&block.conv1, &cache.conv1));
        layers.push((&block.conv2, &cache.conv2));
    }
    layers.push((&net.policy_conv, &workspace.policy_conv));
    layers.push((&net.value_conv, &workspace.value_conv));
    for (layer, cache) in layers {
        if let Some(norm) = &layer.norm {
            update_running(norm, cache, device);
        }
    }
    Ok((registrar.grads, step))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{BOARD_COLS, BOARD_ROWS};
    use crate::model::{ModelConfig, TrunkNorm};
    use crate::train::{GradientEngine, OptimizerConfig, Trainer};
    use burn::module::{Module, ModuleVisitor};
    use burn::tensor::activation::log_softmax;
    use ndarray::{Array1, Array2, Array4};
    use xq_core::seed::SplitMix64;

    /// Sparse 0/1 planes, soft policy targets over a few moves, soft WDL targets, uneven
    /// sample weights with a zero among them.
    fn random_batch(samples: usize, seed: u64) -> TrainBatch {
        let mut rng = SplitMix64::new(seed);
        let inputs = Array4::from_shape_fn((samples, INPUT_PLANES, BOARD_ROWS, BOARD_COLS), |_| {
            if rng.unit_f32() < 0.1 { 1.0 } else { 0.0 }
        });
        let mut policy = Array2::<f32>::zeros((samples, POLICY_SIZE));
        for mut row in policy.rows_mut() {
            let picks: Vec<(usize, f32)> =
                (0..5).map(|_| (rng.below(POLICY_SIZE), 0.05 + rng.unit_f32())).collect();
            let total: f32 = picks.iter().map(|p| p.1).sum();
            for (index, mass) in picks {
                row[index] += mass / total;
            }
        }
        let mut wdl = Array2::<f32>::zeros((samples, 3));
        for mut row in wdl.rows_mut() {
            let masses = [rng.unit_f32(), rng.unit_f32(), rng.unit_f32()];
            let total: f32 = masses.iter().sum::<f32>() + 1e-3;
            for (target, mass) in row.iter_mut().zip(masses) {
                *target = mass / total;
            }
        }
        let mut batch = TrainBatch::new(inputs, policy, wdl);
        batch.policy_weight =
            Some(Array1::from_shape_fn(samples, |k| if k == 3 { 0.0 } else { 0.5 + rng.unit_f32() }));
        batch.value_weight =
            Some(Array1::from_shape_fn(samples, |k| if k == 5 { 0.0 } else { 0.25 + rng.unit_f32() }));
        batch
    }

    /// A network whose SkipInit gains are away from 0, so that every branch has a gradient.
    fn net(config: &ModelConfig, device: &Device) -> PolicyValueNet {
        let mut net = PolicyValueNet::new(config, device).unwrap();
        for (k, block) in net.blocks.iter_mut().enumerate() {
            if block.skip_gain.is_some() {
                let gain = Tensor::<1>::from_data(TensorData::new(vec![0.6 - 0.3 * k as f32], [1]), device);
                block.skip_gain = Some(Param::from_tensor(gain));
            }
        }
        net.fork(&device.clone().autodiff()).train()
    }

    fn burn_gradients(
        net: &PolicyValueNet,
        batch: &TrainBatch,
        value_loss_weight: f32,
        device: &Device,
    ) -> GradientsParams {
        let data = |values: Vec<f32>, shape: Vec<usize>| TensorData::new(values, shape);
        let inputs = Tensor::<4>::from_data(
            data(batch.inputs.iter().copied().collect(), batch.inputs.shape().to_vec()),
            device,
        );
        let (policy, wdl) = net.forward(inputs);
        let ce = |logits: Tensor<2>, target: &Array2<f32>, weights: &Option<Array1<f32>>| {
            let weights = batch.weights(weights);
            let total: f32 = weights.iter().sum();
            let target = Tensor::<2>::from_data(
                data(target.iter().copied().collect(), target.shape().to_vec()),
                device,
            );
            let weights = Tensor::<2>::from_data(data(weights.clone(), vec![weights.len(), 1]), device);
            log_softmax(logits, 1).mul(target).sum_dim(1).mul(weights).sum().mul_scalar(-1.0 / total)
        };
        let total = ce(policy, &batch.policy, &batch.policy_weight)
            .add(ce(wdl, &batch.wdl, &batch.value_weight).mul_scalar(value_loss_weight));
        GradientsParams::from_grads(total.backward(), net)
    }

    /// Every parameter's gradient from both, as `(id, burn, host)`.
    struct Pairs<'a> {
        burn: &'a GradientsParams,
        host: &'a GradientsParams,
        found: Vec<(String, Vec<f32>, Vec<f32>)>,
    }

    impl ModuleVisitor for Pairs<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if !param.is_require_grad() {
                return;
            }
            let get = |grads: &GradientsParams| {
                grads.get::<D>(param.id).map(|t| t.into_data().try_into_vec::<f32>().unwrap())
            };
            let shape = format!("{:?}", param.val().dims());
            let burn = get(self.burn).unwrap_or_else(|| panic!("burn has no gradient for {shape}"));
            let host = get(self.host).unwrap_or_else(|| panic!("the host pass has no gradient for {shape}"));
            self.found.push((shape, burn, host));
        }
    }

    fn assert_same_gradients(config: &ModelConfig) {
        let device = Device::flex().autodiff();
        let batch = random_batch(19, 5);
        let net = net(config, &device);
        let burn = burn_gradients(&net, &batch, 0.7, &device);
        let (host, step) = host_gradients(&net, &batch, 0.7, &mut Workspace::default(), &device).unwrap();
        assert!(step.policy_loss.is_finite() && step.value_loss.is_finite());
        let mut pairs = Pairs { burn: &burn, host: &host, found: Vec::new() };
        net.visit(&mut pairs);
        assert_eq!(pairs.found.len(), burn.len(), "every parameter with a burn gradient is visited");
        assert_eq!(host.len(), burn.len(), "the host pass gives a gradient for every parameter");
        for (shape, burn, host) in pairs.found {
            let scale = burn.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let error = burn.iter().zip(&host).fold(0.0f32, |m, (b, h)| m.max((b - h).abs()));
            assert!(scale > 0.0, "{shape}: the batch exercises every parameter");
            assert!(error <= 2e-4 * scale + 1e-7, "{shape}: host gradient off by {error} (largest {scale})");
        }
    }

    #[test]
    fn host_gradients_equal_burns_with_skip_init_and_head_batch_norm() {
        let mut config = ModelConfig::new(2, 8).with_trunk_norm(TrunkNorm::SkipInit);
        config.seed = 3;
        assert_same_gradients(&config);
    }

    #[test]
    fn host_gradients_equal_burns_with_batch_norm_everywhere() {
        let mut config = ModelConfig::new(2, 8);
        config.seed = 4;
        assert_same_gradients(&config);
    }

    #[test]
    fn host_gradients_equal_burns_without_norms_and_without_blocks() {
        let mut config = ModelConfig::new(1, 6).with_trunk_norm(TrunkNorm::SkipInit);
        config.head_batch_norm = false;
        config.value_hidden = 5;
        assert_same_gradients(&config);
        let mut config = ModelConfig::new(0, 4);
        config.policy_channels = 3;
        assert_same_gradients(&config);
    }

    #[test]
    fn host_gradients_do_not_depend_on_the_thread_count() {
        let config = ModelConfig::new(1, 8).with_trunk_norm(TrunkNorm::SkipInit);
        let device = Device::flex().autodiff();
        let batch = random_batch(21, 9);
        let net = net(&config, &device);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (grads, step) = pool
                .install(|| host_gradients(&net, &batch, 1.0, &mut Workspace::default(), &device))
                .unwrap();
            let mut all = Vec::new();
            struct Collect<'a>(&'a GradientsParams, &'a mut Vec<f32>);
            impl ModuleVisitor for Collect<'_> {
                fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                    let Some(grad) = self.0.get::<D>(param.id) else { return };
                    self.1.extend(grad.into_data().try_into_vec::<f32>().unwrap());
                }
            }
            net.visit(&mut Collect(&grads, &mut all));
            (all, step.policy_loss, step.value_loss)
        };
        assert_eq!(run(1), run(3));
    }

    #[test]
    fn steps_of_both_engines_train_the_same_network() {
        let mut config = ModelConfig::new(1, 8);
        config.seed = 11;
        let device = Device::flex();
        let plain = PolicyValueNet::new(&config, &device).unwrap();
        let optimizer = OptimizerConfig { learning_rate: 3e-3, ..OptimizerConfig::default() };
        let trainer = |engine| {
            Trainer::new(plain.clone(), optimizer.clone(), &device.clone().autodiff())
                .unwrap()
                .with_gradients(engine)
        };
        let (mut burn, mut host) = (trainer(GradientEngine::Burn), trainer(GradientEngine::Host));
        assert_eq!((burn.gradients(), host.gradients()), (GradientEngine::Burn, GradientEngine::Host));
        for step in 0..4 {
            let batch = random_batch(12, 20 + step);
            let a = burn.train_step(&batch, 3e-3).unwrap();
            let b = host.train_step(&batch, 3e-3).unwrap();
            assert!((a.losses.total - b.losses.total).abs() < 1e-4, "step {step}: {a:?} vs {b:?}");
            assert_eq!((a.policy_samples, a.value_samples), (b.policy_samples, b.value_samples));
        }
        // Weights and running statistics: the inference networks answer alike.
        let batch = random_batch(7, 99);
        let inputs = || {
            Tensor::<4>::from_data(
                TensorData::new(batch.inputs.iter().copied().collect(), batch.inputs.shape().to_vec()),
                &device,
            )
        };
        let (pa, va) = burn.inference_net().forward(inputs());
        let (pb, vb) = host.inference_net().forward(inputs());
        for (a, b) in [(pa, pb), (va, vb)] {
            let (a, b) =
                (a.into_data().try_into_vec::<f32>().unwrap(), b.into_data().try_into_vec::<f32>().unwrap());
            let error = a.iter().zip(&b).fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
            assert!(error < 1e-3, "outputs after 4 steps differ by {error}");
        }
    }
}
