//! `out += (a · b)` in 8-bit integers, for [`super::Precision::Int8`].
//!
//! The activations a layer reads are the output of a ReLU, so they quantize to unsigned bytes
//! with one scale a position (`max / 255`): a position's result never depends on the others in
//! its batch. The weights quantize to signed bytes with one scale an output column
//! (`max |w| / 127`). AVX-512 VNNI's `vpdpbusd` multiplies 64 byte pairs and adds them in
//! groups of four into 16 exact 32-bit sums, four times the multiply-adds of an `f32` FMA on
//! the same register width, and the weights take a quarter of the memory. The sums are exact;
//! what differs from the `f32` pass is the rounding of each input and weight to 8 bits.
//!
//! The weights are packed once as `[depth / 4][columns rounded up to 16][4]`: one 64-byte load
//! is the four depth steps of 16 columns that one `vpdpbusd` consumes. Each segment of a left
//! row is padded to a multiple of four bytes with zeros, so the depth steps of a segment never
//! straddle two.

use ndarray::Array2;

use super::product::LeftRows;

/// Bytes a `vpdpbusd` lane sums: the depth step of the packed weights.
const STEP: usize = 4;
/// 32-bit lanes of an AVX-512 register.
const LANES: usize = 16;

/// `n` rounded up to a multiple of `to`.
pub(super) const fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

/// A weight matrix `[segments · width, columns]` quantized and packed for the VNNI kernel.
#[derive(Clone, Debug)]
pub(super) struct Int8Weights {
    segments: usize,
    /// A segment's width rounded up to [`STEP`]: what the quantized left rows must have.
    segment_len: usize,
    columns: usize,
    padded_columns: usize,
    packed: Vec<i8>,
    /// The value of one unit of column `c`'s weights; zero in the padding columns.
    scales: Vec<f32>,
}

impl Int8Weights {
    /// Quantizes `weight`, whose rows are `segments` runs of `weight.nrows() / segments`
    /// (a convolution's taps, or one run for a dense layer).
    pub(super) fn new(weight: &Array2<f32>, segments: usize) -> Int8Weights {
        let (depth, columns) = weight.dim();
        assert!(segments > 0 && depth.is_multiple_of(segments), "{depth} rows in {segments} segments");
        let width = depth / segments;
        let segment_len = round_up(width, STEP);
        let padded_columns = round_up(columns, LANES);
        let mut scales = vec![0.0f32; padded_columns];
        for (c, scale) in scales.iter_mut().take(columns).enumerate() {
            let max = weight.column(c).iter().fold(0.0f32, |m, w| m.max(w.abs()));
            *scale = max / 127.0;
        }
        let steps = segments * segment_len / STEP;
        let mut packed = vec![0i8; steps * padded_columns * STEP];
        for s in 0..segments {
            for i in 0..width {
                let k = s * segment_len + i;
                let (step, lane) = (k / STEP, k % STEP);
                for c in 0..columns {
                    let w = weight[[s * width + i, c]];
                    let q = if scales[c] > 0.0 { (w / scales[c]).round().clamp(-127.0, 127.0) } else { 0.0 };
                    packed[(step * padded_columns + c) * STEP + lane] = q as i8;
                }
            }
        }
        Int8Weights { segments, segment_len, columns, padded_columns, packed, scales }
    }

    /// The width a quantized left row's segment must have.
    pub(super) fn segment_len(&self) -> usize {
        self.segment_len
    }
}

/// Quantizes `rows` rows of `width` non-negative values (`values` row-major) into rows of
/// `padded` bytes (zeros past `width`), one scale for each `group` consecutive rows: a value
/// `v` of a group whose largest is `max` becomes `⌊v · 255 / max + ½⌋`, its scale `max / 255`.
/// Negative values (there are none after a ReLU) read as zero.
pub(super) fn quantize(
    values: &[f32],
    width: usize,
    padded: usize,
    group: usize,
    bytes: &mut Vec<u8>,
    scales: &mut Vec<f32>,
) {
    let rows = values.len() / width;
    bytes.clear();
    bytes.resize(rows * padded, 0);
    scales.clear();
    #[cfg(target_arch = "x86_64")]
    if is_supported() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has AVX-512F and BW (checked); `bytes` holds `rows·padded` bytes.
        unsafe {
            vnni::quantize(values, width, padded, group, bytes, scales);
        }
        return;
    }
    quantize_plainly(values, width, padded, group, bytes, scales);
}

/// [`quantize`] one value at a time, into `bytes` already zeroed to `rows·padded`.
fn quantize_plainly(
    values: &[f32],
    width: usize,
    padded: usize,
    group: usize,
    bytes: &mut [u8],
    scales: &mut Vec<f32>,
) {
    for (group_values, group_bytes) in values.chunks(group * width).zip(bytes.chunks_mut(group * padded)) {
        let max = group_values.iter().fold(0.0f32, |m, &v| m.max(v));
        scales.push(max / 255.0);
        if max == 0.0 {
            continue;
        }
        let inverse = 255.0 / max;
        for (row, out) in group_values.chunks_exact(width).zip(group_bytes.chunks_exact_mut(padded)) {
            for (o, &v) in out.iter_mut().zip(row) {
                // `as` truncates and saturates: rounds half up, and a negative value reads as 0.
                *o = (v * inverse + 0.5) as u8;
            }
        }
    }
}

/// Whether this CPU runs [`add_product`].
pub(super) fn is_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `out[r, c] += (left[r] · weights[.., c]) · row_scales[r / group] · column scale c` for
/// `rows` rows, `out` row-major `[rows, columns]`. `left`'s segments must be
/// [`Int8Weights::segment_len`] bytes wide and as many as the weights'.
///
/// # Panics
/// If the shapes disagree, or the CPU lacks VNNI ([`is_supported`]; the caller checks).
pub(super) fn add_product<L: LeftRows<Value = u8>>(
    left: L,
    rows: usize,
    weights: &Int8Weights,
    row_scales: &[f32],
    group: usize,
    out: &mut [f32],
) {
    assert_eq!(left.shape(), (weights.segments, weights.segment_len), "segments of the int8 product");
    assert_eq!(out.len(), rows * weights.columns, "output of the int8 product");
    assert!(row_scales.len() * group >= rows, "a scale for every row");
    assert!(is_supported(), "the int8 product needs AVX-512 VNNI");
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: the CPU has the instructions (asserted), and the shapes agree (asserted).
    unsafe {
        vnni::add_product(left, rows, weights, row_scales, group, out);
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod vnni {
    use std::arch::x86_64::{
        __m512i, __mmask16, _mm512_add_ps, _mm512_cvtepi32_ps, _mm512_cvttps_epi32, _mm512_dpbusd_epi32,
        _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_loadu_si512, _mm512_mask_cvtusepi32_storeu_epi8,
        _mm512_mask_storeu_ps, _mm512_maskz_loadu_ps, _mm512_max_ps, _mm512_mul_ps, _mm512_reduce_max_ps,
        _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_ps, _mm512_setzero_si512,
    };

    use super::{Int8Weights, LANES, LeftRows, STEP};

    /// [`super::quantize`] in 16-lane vectors, into `bytes` already zeroed to `rows·padded`.
    ///
    /// # Safety
    /// The CPU has AVX-512F and BW; `bytes` holds `padded` bytes for each `width` values.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn quantize(
        values: &[f32],
        width: usize,
        padded: usize,
        group: usize,
        bytes: &mut [u8],
        scales: &mut Vec<f32>,
    ) {
        for (group_values, group_bytes) in values.chunks(group * width).zip(bytes.chunks_mut(group * padded))
        {
            let mut chunks = group_values.chunks_exact(LANES);
            let mut lanes = _mm512_setzero_ps();
            for chunk in &mut chunks {
                // SAFETY: `chunk` holds 16 values.
                lanes = _mm512_max_ps(lanes, unsafe { _mm512_loadu_ps(chunk.as_ptr()) });
            }
            let max = chunks.remainder().iter().fold(_mm512_reduce_max_ps(lanes), |m, &v| m.max(v));
            scales.push(max / 255.0);
            if max == 0.0 {
                continue;
            }
            let (inverse, half, zero) =
                (_mm512_set1_ps(255.0 / max), _mm512_set1_ps(0.5), _mm512_setzero_ps());
            for (row, out) in group_values.chunks_exact(width).zip(group_bytes.chunks_exact_mut(padded)) {
                for start in (0..width).step_by(LANES) {
                    let lanes = (width - start).min(LANES);
                    let mask: __mmask16 = if lanes == LANES { !0 } else { (1u16 << lanes) - 1 };
                    // SAFETY: the mask covers `start..width` of `row` and of `out` (`padded >= width`).
                    unsafe {
                        let v = _mm512_maskz_loadu_ps(mask, row.as_ptr().add(start));
                        let scaled = _mm512_max_ps(_mm512_add_ps(_mm512_mul_ps(v, inverse), half), zero);
                        _mm512_mask_cvtusepi32_storeu_epi8(
                            out.as_mut_ptr().add(start).cast(),
                            mask,
                            _mm512_cvttps_epi32(scaled),
                        );
                    }
                }
            }
        }
    }

    /// What one strip of rows shares.
    #[derive(Clone, Copy)]
    struct Product<'a> {
        weights: &'a Int8Weights,
        row_scales: &'a [f32],
        group: usize,
    }

    /// # Safety
    /// The CPU has AVX-512F, BW and VNNI; the shapes agree as [`super::add_product`] asserts.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn add_product<L: LeftRows<Value = u8>>(
        left: L,
        rows: usize,
        weights: &Int8Weights,
        row_scales: &[f32],
        group: usize,
        out: &mut [f32],
    ) {
        let product = Product { weights, row_scales, group };
        // The tiles of the f32 AVX-512 kernel: up to 24 accumulators in 32 registers.
        let wide = weights.padded_columns >= 4 * LANES;
        let mut row = 0;
        while row < rows {
            // SAFETY: as this function's; each strip covers rows `row..row + R`, `row + R <= rows`.
            row += unsafe {
                match (wide, rows - row) {
                    (true, 6..) => strip::<L, 6, 4>(left, product, out, row),
                    (true, 4 | 5) => strip::<L, 4, 4>(left, product, out, row),
                    (true, 2 | 3) => strip::<L, 2, 8>(left, product, out, row),
                    (true, _) => strip::<L, 1, 8>(left, product, out, row),
                    (false, 8..) => strip::<L, 8, 2>(left, product, out, row),
                    (false, 4..) => strip::<L, 4, 2>(left, product, out, row),
                    (false, 2 | 3) => strip::<L, 2, 2>(left, product, out, row),
                    (false, _) => strip::<L, 1, 2>(left, product, out, row),
                }
            };
        }
    }

    /// Rows `row..row + R`, `V` vectors of 16 columns at a time, then one. Returns `R`.
    ///
    /// # Safety
    /// As [`add_product`], and `row + R <= rows`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn strip<L: LeftRows<Value = u8>, const R: usize, const V: usize>(
        left: L,
        product: Product<'_>,
        out: &mut [f32],
        row: usize,
    ) -> usize {
        let padded = product.weights.padded_columns;
        let mut column = 0;
        // SAFETY (both loops): as this function's, with the tile's columns inside the packed
        // weights' padded columns.
        while column + V * LANES <= padded {
            unsafe { tile::<L, R, V>(left, product, out, row, column) };
            column += V * LANES;
        }
        while column < padded {
            unsafe { tile::<L, R, 1>(left, product, out, row, column) };
            column += LANES;
        }
        R
    }

    /// The output lanes of the vector at `column` that are real columns.
    fn mask(columns: usize, column: usize) -> __mmask16 {
        match columns.saturating_sub(column) {
            0 => 0,
            n if n >= LANES => !0,
            n => (1u16 << n) - 1,
        }
    }

    /// `out[row.., column..]` (`R` rows, `V·16` columns of the padded weights, stored only
    /// where they are real columns) `+=` the dequantized int8 product.
    ///
    /// # Safety
    /// As [`add_product`], with `row + R <= rows` and `column + V·16 <= padded_columns`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<L: LeftRows<Value = u8>, const R: usize, const V: usize>(
        left: L,
        product: Product<'_>,
        out: &mut [f32],
        row: usize,
        column: usize,
    ) {
        let Product { weights, row_scales, group } = product;
        let (segments, segment_len) = left.shape();
        let stride = weights.padded_columns * STEP;
        let mut acc: [[__m512i; V]; R] = [[_mm512_setzero_si512(); V]; R];
        // SAFETY: every offset is inside its slice by this function's contract: the packed
        // weights hold `segments·segment_len/4` steps of `padded_columns·4` bytes, and this tile
        // reads columns `column..column + V·16` of each; each segment is sliced to
        // `segment_len` bytes (checked) and read 4 bytes at a time below `segment_len`, a
        // multiple of 4; the stores touch rows `row..row + R` and only the real columns.
        unsafe {
            let mut b_ptr = weights.packed.as_ptr().add(column * STEP);
            for s in 0..segments {
                let a_ptrs: [*const u8; R] =
                    std::array::from_fn(|r| left.segment(row + r, s)[..segment_len].as_ptr());
                for k in (0..segment_len).step_by(STEP) {
                    let mut w = [_mm512_setzero_si512(); V];
                    for (v, w) in w.iter_mut().enumerate() {
                        *w = _mm512_loadu_si512(b_ptr.add(v * LANES * STEP).cast());
                    }
                    for (acc, a_ptr) in acc.iter_mut().zip(&a_ptrs) {
                        let a = _mm512_set1_epi32(a_ptr.add(k).cast::<i32>().read_unaligned());
                        for (acc, w) in acc.iter_mut().zip(&w) {
                            *acc = _mm512_dpbusd_epi32(*acc, a, *w);
                        }
                    }
                    b_ptr = b_ptr.add(stride);
                }
            }
            let columns = weights.columns;
            let out_ptr = out.as_mut_ptr();
            for (r, acc) in acc.iter().enumerate() {
                let row_scale = _mm512_set1_ps(row_scales[(row + r) / group]);
                for (v, acc) in acc.iter().enumerate() {
                    let c = column + v * LANES;
                    let mask = mask(columns, c);
                    if mask == 0 {
                        continue;
                    }
                    let scale = _mm512_mul_ps(_mm512_loadu_ps(weights.scales.as_ptr().add(c)), row_scale);
                    let at = out_ptr.add((row + r) * columns + c);
                    let sum =
                        _mm512_fmadd_ps(_mm512_cvtepi32_ps(*acc), scale, _mm512_maskz_loadu_ps(mask, at));
                    _mm512_mask_storeu_ps(at, mask, sum);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use ndarray::Array2;

    use super::*;
    use crate::cpu_inference::product::Matrix;

    fn filled(rows: usize, columns: usize, seed: u32, low: f32) -> Array2<f32> {
        Array2::from_shape_fn((rows, columns), |(r, c)| {
            let h = (r as u32).wrapping_mul(2_654_435_761) ^ (c as u32).wrapping_mul(40_503) ^ seed;
            low + (h % 1000) as f32 / 1000.0 * (1.0 - low)
        })
    }

    #[test]
    fn quantized_rows_keep_a_scale_a_group_and_pad_with_zeros() {
        let values = [0.0, 1.0, 0.5, 2.0, 0.0, 0.0, 0.0, 0.0, 4.0, 2.0, -1.0, 1.0];
        let (mut bytes, mut scales) = (Vec::new(), Vec::new());
        quantize(&values, 3, 4, 2, &mut bytes, &mut scales);
        assert_eq!(scales, [2.0 / 255.0, 4.0 / 255.0]);
        assert_eq!(bytes, [0, 128, 64, 0, 255, 0, 0, 0, 0, 0, 255, 0, 128, 0, 64, 0]);
    }

    #[test]
    fn vector_quantization_equals_the_plain_one() {
        for (width, padded, group) in [(32, 32, 90), (21, 24, 3), (360, 360, 1), (180, 180, 1), (5, 8, 2)] {
            let values = filled(7 * group, width, 5, -0.2).into_raw_vec_and_offset().0;
            let (mut bytes, mut scales) = (Vec::new(), Vec::new());
            quantize(&values, width, padded, group, &mut bytes, &mut scales);
            let mut plain = vec![0u8; bytes.len()];
            let mut plain_scales = Vec::new();
            quantize_plainly(&values, width, padded, group, &mut plain, &mut plain_scales);
            assert_eq!(
                (bytes, scales),
                (plain, plain_scales),
                "{width} wide, padded to {padded}, {group} a scale"
            );
        }
    }

    #[test]
    fn packed_weights_round_to_the_nearest_step_of_their_column() {
        let weight = Array2::from_shape_vec((2, 2), vec![1.0, -0.5, -0.5, 0.25]).unwrap();
        let packed = Int8Weights::new(&weight, 1);
        assert_eq!(packed.segment_len(), 4);
        assert_eq!(&packed.scales[..2], &[1.0 / 127.0, 0.5 / 127.0]);
        assert_eq!(&packed.packed[..8], &[127, -64, 0, 0, -127, 64, 0, 0]);
    }

    /// Rows of `segments` runs of `padded` bytes.
    #[derive(Clone, Copy)]
    struct Segmented<'a> {
        bytes: &'a [u8],
        segments: usize,
        padded: usize,
    }

    impl LeftRows for Segmented<'_> {
        type Value = u8;

        fn shape(&self) -> (usize, usize) {
            (self.segments, self.padded)
        }

        fn segment(&self, row: usize, segment: usize) -> &[u8] {
            let at = (row * self.segments + segment) * self.padded;
            &self.bytes[at..at + self.padded]
        }
    }

    /// The kernel against the same quantized arithmetic done plainly, for every tile shape and
    /// column remainder: equal to float rounding of the final scaling.
    #[test]
    fn the_vnni_kernel_equals_the_plain_int8_product() {
        if !is_supported() {
            eprintln!("skipped: this CPU has no AVX-512 VNNI");
            return;
        }
        for rows in [1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 25, 90] {
            for columns in [1, 3, 16, 17, 32, 48, 64, 67, 130] {
                for (segments, width) in [(1, 5), (1, 32), (9, 8), (3, 13)] {
                    let a = filled(rows * segments, width, 1, 0.0);
                    let weight = filled(segments * width, columns, 2, -1.0);
                    let packed = Int8Weights::new(&weight, segments);
                    let padded = packed.segment_len();
                    let (mut bytes, mut scales) = (Vec::new(), Vec::new());
                    quantize(a.as_slice().unwrap(), width, padded, 2 * segments, &mut bytes, &mut scales);
                    let left = Matrix { values: &bytes[..], depth: segments * padded };
                    let flat = Int8Weights::new(
                        &Array2::from_shape_fn((segments * padded, columns), |(k, c)| {
                            let (s, i) = (k / padded, k % padded);
                            if i < width { weight[[s * width + i, c]] } else { 0.0 }
                        }),
                        1,
                    );
                    let start = filled(rows, columns, 3, -1.0);
                    let mut out = start.clone().into_raw_vec_and_offset().0;
                    add_product(left, rows, &flat, &scales, 2, &mut out);
                    let mut segmented = start.clone().into_raw_vec_and_offset().0;
                    let by_segment = Segmented { bytes: &bytes, segments, padded };
                    add_product(by_segment, rows, &packed, &scales, 2, &mut segmented);
                    assert_eq!(out, segmented, "the same sums whether a row comes whole or in segments");
                    for r in 0..rows {
                        for c in 0..columns {
                            let sum: i32 = (0..segments * padded)
                                .map(|k| {
                                    let (step, lane) = (k / STEP, k % STEP);
                                    i32::from(bytes[r * segments * padded + k])
                                        * i32::from(
                                            flat.packed[(step * flat.padded_columns + c) * STEP + lane],
                                        )
                                })
                                .sum();
                            let expected = start[[r, c]] + sum as f32 * scales[r / 2] * flat.scales[c];
                            let found = out[r * columns + c];
                            assert!(
                                (found - expected).abs() <= 1e-5 * expected.abs().max(1.0),
                                "{rows}×{columns}, {segments}×{width}, at ({r}, {c}): {found} != {expected}"
                            );
                        }
                    }
                }
            }
        }
    }
}
