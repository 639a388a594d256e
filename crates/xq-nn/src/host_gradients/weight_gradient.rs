//! The weight gradient of a 3×3 "same" convolution over position-major activations, read where
//! they lie.
//!
//! `out[(t · c_in + i) · c_out + o] = Σ_r input[square tap t of row r reaches, i] · grad[r, o]`:
//! a product whose depth is the rows. A general GEMM needs the im2col copy of the input (nine
//! times its size) and packs both operands on every call; here a tile of `R` input channels ×
//! `V` vectors of output channels stays in registers over every row of a chunk, each gradient
//! vector loaded is used `R` times and each input value broadcast `V` times.

use crate::cpu_inference::{Kernel, NEIGHBOURS};
use crate::encoding::PLANE_SIZE;

/// `out = ` the weight gradient (`[9 · c_in, c_out]`) of `rows` rows (whole boards) of
/// `input` (`[rows, c_in]`) against `grad` (`[rows, c_out]`), in `kernel` (an unsupported one
/// runs the portable loops). Each entry adds its rows in row order.
pub(super) fn weight_gradient(
    kernel: Kernel,
    input: &[f32],
    c_in: usize,
    grad: &[f32],
    c_out: usize,
    rows: usize,
    out: &mut [f32],
) {
    assert_eq!(rows % PLANE_SIZE, 0, "a weight gradient's rows are whole boards");
    let operands = Operands { input: &input[..rows * c_in], c_in, grad: &grad[..rows * c_out], c_out, rows };
    let out = &mut out[..9 * c_in * c_out];
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Avx512 && kernel.is_supported() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX-512F (checked just above); the three slices have exactly the
        // lengths their shapes say (sliced above, so checked).
        unsafe {
            avx512::weight_gradient(operands, out);
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if kernel == Kernel::Avx2 && kernel.is_supported() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        unsafe {
            portable_avx2(operands, out);
        }
        return;
    }
    let _ = kernel;
    portable(operands, out);
}

/// The operands of one weight gradient: `input` `[rows, c_in]`, `grad` `[rows, c_out]`.
#[derive(Clone, Copy)]
struct Operands<'a> {
    input: &'a [f32],
    c_in: usize,
    grad: &'a [f32],
    c_out: usize,
    rows: usize,
}

/// [`portable`] compiled for AVX2, whose 8-lane vectors the compiler then uses.
///
/// # Safety
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[target_feature(enable = "avx2,fma")]
unsafe fn portable_avx2(operands: Operands<'_>, out: &mut [f32]) {
    portable(operands, out);
}

/// [`weight_gradient`] in plain loops (vectorised by the compiler along the output channels).
#[inline(always)]
fn portable(operands: Operands<'_>, out: &mut [f32]) {
    let Operands { input, c_in, grad, c_out, rows } = operands;
    out.fill(0.0);
    for row in 0..rows {
        let square = row % PLANE_SIZE;
        let grad_row = &grad[row * c_out..(row + 1) * c_out];
        for (tap, block) in out.chunks_exact_mut(c_in * c_out).enumerate() {
            let Some(from) = NEIGHBOURS[square][tap] else { continue };
            let from = (row - square + usize::from(from)) * c_in;
            for (&x, out_row) in input[from..from + c_in].iter().zip(block.chunks_exact_mut(c_out)) {
                for (o, &g) in out_row.iter_mut().zip(grad_row) {
                    *o += x * g;
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx512 {
    use std::arch::x86_64::{
        __m512, __mmask16, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_mask_storeu_ps, _mm512_maskz_loadu_ps,
        _mm512_set1_ps, _mm512_setzero_ps, _mm512_storeu_ps,
    };

    use super::Operands;
    use crate::cpu_inference::NEIGHBOURS;
    use crate::encoding::PLANE_SIZE;

    const LANES: usize = 16;

    /// # Safety
    /// The CPU has AVX-512F; `operands.input`, `operands.grad` and `out` hold exactly `rows·c_in`, `rows·c_out`
    /// and `9·c_in·c_out` values, and `rows` is whole boards.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn weight_gradient(operands: Operands<'_>, out: &mut [f32]) {
        let Operands { c_in, c_out, .. } = operands;
        // 32 registers: up to 24 accumulators, the gradient vectors of one row and a broadcast.
        // 32 output channels are two vectors, so a tile is 12 input channels tall; 64 and
        // more, four vectors and 6 tall.
        let wide = c_out >= 4 * LANES;
        for tap in 0..9 {
            let mut channel = 0;
            while channel < c_in {
                // SAFETY: as this function's; each strip covers input channels
                // `channel..channel + R` with `channel + R <= c_in`.
                channel += unsafe {
                    match (wide, c_in - channel) {
                        (true, 6..) => strip::<6, 4>(operands, out, tap, channel),
                        (true, 4 | 5) => strip::<4, 4>(operands, out, tap, channel),
                        (true, 2 | 3) => strip::<2, 4>(operands, out, tap, channel),
                        (true, _) => strip::<1, 4>(operands, out, tap, channel),
                        (false, 12..) => strip::<12, 2>(operands, out, tap, channel),
                        (false, 8..) => strip::<8, 2>(operands, out, tap, channel),
                        (false, 4..) => strip::<4, 2>(operands, out, tap, channel),
                        (false, 2 | 3) => strip::<2, 2>(operands, out, tap, channel),
                        (false, _) => strip::<1, 2>(operands, out, tap, channel),
                    }
                };
            }
        }
    }

    /// Input channels `channel..channel + R` of tap `tap`, `V` vectors of output channels at a
    /// time, then one, then the last `c_out % 16` under a mask. Returns `R`.
    ///
    /// # Safety
    /// As [`weight_gradient`], and `channel + R <= c_in`.
    #[target_feature(enable = "avx512f")]
    unsafe fn strip<const R: usize, const V: usize>(
        operands: Operands<'_>,
        out: &mut [f32],
        tap: usize,
        channel: usize,
    ) -> usize {
        let c_out = operands.c_out;
        let mut column = 0;
        // SAFETY (all three loops): as this function's, with the tile's columns inside `c_out`;
        // the last tile's mask covers only `c_out - column < 16` lanes.
        while column + V * LANES <= c_out {
            unsafe { tile::<R, V>(operands, out, tap, channel, column, !0) };
            column += V * LANES;
        }
        while column + LANES <= c_out {
            unsafe { tile::<R, 1>(operands, out, tap, channel, column, !0) };
            column += LANES;
        }
        if column < c_out {
            let mask: __mmask16 = (1u16 << (c_out - column)) - 1;
            unsafe { tile::<R, 1>(operands, out, tap, channel, column, mask) };
        }
        R
    }

    /// `out[tap · c_in + channel + r, column..]` for `r < R` (`V·16` columns, the last
    /// vector's lanes under `mask`) `= Σ_row input[tap's square, channel + r] · grad[row, column..]`.
    ///
    /// # Safety
    /// As [`weight_gradient`], with `channel + R <= c_in` and `column + (V - 1)·16 + 16 <= c_out`
    /// for the lanes `mask` sets (all 16 when `V > 1`).
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn tile<const R: usize, const V: usize>(
        operands: Operands<'_>,
        out: &mut [f32],
        tap: usize,
        channel: usize,
        column: usize,
        mask: __mmask16,
    ) {
        let Operands { input, c_in, grad, c_out, rows } = operands;
        let mut acc: [[__m512; V]; R] = [[_mm512_setzero_ps(); V]; R];
        let full = mask == !0;
        // SAFETY: every offset is inside its slice by this function's contract: a row's
        // neighbour is a square of the same board (`NEIGHBOURS`), so `from + channel + R <=
        // rows·c_in`; the gradient's columns `column..` of row `row < rows`; and the output's
        // rows `tap·c_in + channel + r < 9·c_in` at the same columns. Masked loads and stores
        // touch no lane outside the mask.
        unsafe {
            let grad_ptr = grad.as_ptr().add(column);
            for row in 0..rows {
                let square = row % PLANE_SIZE;
                let Some(from) = NEIGHBOURS[square][tap] else { continue };
                let x_ptr = input.as_ptr().add((row - square + usize::from(from)) * c_in + channel);
                let g_ptr = grad_ptr.add(row * c_out);
                let mut g = [_mm512_setzero_ps(); V];
                for (v, g) in g.iter_mut().enumerate() {
                    *g = if full {
                        _mm512_loadu_ps(g_ptr.add(v * LANES))
                    } else {
                        _mm512_maskz_loadu_ps(mask, g_ptr.add(v * LANES))
                    };
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let x = _mm512_set1_ps(*x_ptr.add(r));
                    for (acc, g) in acc.iter_mut().zip(&g) {
                        *acc = _mm512_fmadd_ps(x, *g, *acc);
                    }
                }
            }
            let out_ptr = out.as_mut_ptr();
            for (r, acc) in acc.iter().enumerate() {
                for (v, acc) in acc.iter().enumerate() {
                    let at = out_ptr.add((tap * c_in + channel + r) * c_out + column + v * LANES);
                    if full {
                        _mm512_storeu_ps(at, *acc);
                    } else {
                        _mm512_mask_storeu_ps(at, mask, *acc);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(len: usize, seed: u32) -> Vec<f32> {
        (0..len as u32)
            .map(|i| ((i.wrapping_mul(2_654_435_761) ^ seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    /// The definition, in f64.
    fn reference(input: &[f32], c_in: usize, grad: &[f32], c_out: usize, rows: usize) -> Vec<f64> {
        let mut out = vec![0.0f64; 9 * c_in * c_out];
        for row in 0..rows {
            let square = row % PLANE_SIZE;
            for tap in 0..9 {
                let Some(from) = NEIGHBOURS[square][tap] else { continue };
                let from = row - square + usize::from(from);
                for i in 0..c_in {
                    for o in 0..c_out {
                        out[(tap * c_in + i) * c_out + o] +=
                            f64::from(input[from * c_in + i]) * f64::from(grad[row * c_out + o]);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_kernel_equals_the_definition_for_every_shape() {
        // Channel counts that reach every tile of both strip widths and the masked tails.
        for (c_in, c_out) in [(1, 1), (15, 32), (32, 32), (13, 20), (7, 64), (64, 80), (3, 17)] {
            let rows = 2 * PLANE_SIZE;
            let input = filled(rows * c_in, 7);
            let grad = filled(rows * c_out, 11);
            let expected = reference(&input, c_in, &grad, c_out, rows);
            for kernel in Kernel::ALL.into_iter().filter(|k| k.is_supported()) {
                let mut out = vec![f32::NAN; 9 * c_in * c_out];
                weight_gradient(kernel, &input, c_in, &grad, c_out, rows, &mut out);
                for (index, (&got, &want)) in out.iter().zip(&expected).enumerate() {
                    assert!(
                        (f64::from(got) - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{kernel:?} {c_in}x{c_out} entry {index}: {got} against {want}"
                    );
                }
            }
        }
    }
}
