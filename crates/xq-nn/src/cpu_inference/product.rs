//! `out += a · b`, the one operation [`super::CpuNet`] spends its time in.
//!
//! A general GEMM packs both operands into panels on every call, which at a search's batch
//! sizes costs as much as the arithmetic. Here the weights (`b`) are read where they lie: a
//! tile of `R` rows × `V` AVX2 vectors of the output stays in registers over the whole depth,
//! each weight vector loaded is used `R` times and each input value broadcast is used `V`
//! times. The tile shape follows the rows left: 6 × 16 for a convolution's 90 rows a
//! position, down to 1 × 64 for a head layer at batch 1, where twelve (or eight) independent
//! accumulators hide the latency of the fused multiply-add.
//!
//! The left operand is read through [`LeftRows`]: a row is a few contiguous segments, so a
//! 3×3 convolution reads its nine taps straight from the activations instead of from an
//! im2col copy of them.

use ndarray::{Array2, ArrayView2, ArrayViewMut2, linalg::general_mat_mul};

/// The left operand of a product, row by row: each row is `segments` runs of `segment_len`
/// contiguous values, which together make its `segments · segment_len` = depth values.
pub(crate) trait LeftRows: Copy {
    /// `f32`, or `u8` for the int8 products.
    type Value: Copy + 'static;
    /// `(segments, segment_len)`.
    fn shape(&self) -> (usize, usize);
    /// Segment `segment` of row `row`: at least `segment_len` values.
    fn segment(&self, row: usize, segment: usize) -> &[Self::Value];
}

/// A row-major matrix `[rows, depth]` as a [`LeftRows`] of one segment a row.
#[derive(Clone, Copy)]
pub(crate) struct Matrix<'a, T = f32> {
    pub(crate) values: &'a [T],
    pub(crate) depth: usize,
}

impl<T: Copy + 'static> LeftRows for Matrix<'_, T> {
    type Value = T;

    fn shape(&self) -> (usize, usize) {
        (1, self.depth)
    }

    fn segment(&self, row: usize, _segment: usize) -> &[T] {
        &self.values[row * self.depth..(row + 1) * self.depth]
    }
}

/// Which kernel runs the products: the widest vector unit the CPU has, or one chosen for a
/// comparison. Every kernel adds each output's terms in the same order with fused
/// multiply-adds, so [`Kernel::Avx2`] and [`Kernel::Avx512`] give bit-identical outputs;
/// [`Kernel::Portable`] (`matrixmultiply`) rounds differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// `matrixmultiply` on rows gathered into a buffer: any CPU, any architecture.
    Portable,
    /// Register tiles of 8-lane AVX2 vectors with FMA (x86-64).
    Avx2,
    /// Register tiles of 16-lane AVX-512 vectors, 32 registers, masked column tails (x86-64).
    Avx512,
}

impl Kernel {
    /// Every kernel, narrowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Portable, Kernel::Avx2, Kernel::Avx512];

    /// The widest kernel this CPU runs (detected once).
    pub fn best() -> Kernel {
        static BEST: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            Kernel::ALL.into_iter().rev().find(|k| k.is_supported()).unwrap_or(Kernel::Portable)
        })
    }

    /// Whether this CPU has the instructions the kernel uses.
    pub fn is_supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2 | Kernel::Avx512 => false,
        }
    }

    /// The name `--kernel` takes: `portable`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// The kernel named `name` (as [`Kernel::name`] writes it).
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// `out += left · b` for `rows` rows, `out` row-major `[rows, b.columns]`, in `kernel`, which
/// must be supported ([`Kernel::is_supported`]; an unsupported one falls back to
/// [`Kernel::Portable`]), as must `b` be in standard layout for the vector kernels.
pub(crate) fn add_product<L: LeftRows<Value = f32>>(
    kernel: Kernel,
    left: L,
    rows: usize,
    b: &Array2<f32>,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
) {
    let (segments, segment_len) = left.shape();
    let (depth, columns) = (segments * segment_len, b.ncols());
    assert_eq!(b.nrows(), depth, "inner dimensions of the product");
    assert_eq!(out.len(), rows * columns, "output of the product");
    #[cfg(target_arch = "x86_64")]
    if let Some(b_values) = b.as_slice()
        && kernel != Kernel::Portable
        && kernel.is_supported()
    {
        #[allow(unsafe_code)]
        // SAFETY: the CPU has the kernel's instructions (checked just above); `b` holds
        // `depth·columns` values and `out` `rows·columns` (asserted above).
        unsafe {
            match kernel {
                Kernel::Avx512 => avx512::add_product(left, rows, b_values, columns, out),
                _ => avx2::add_product(left, rows, b_values, columns, out),
            }
        }
        return;
    }
    let _ = kernel;
    add_product_general(left, rows, b, out, scratch);
}

/// [`add_product`] by `matrixmultiply`, on any CPU and any memory layout.
fn add_product_general<L: LeftRows<Value = f32>>(
    left: L,
    rows: usize,
    b: &Array2<f32>,
    out: &mut [f32],
    scratch: &mut Vec<f32>,
) {
    let (segments, segment_len) = left.shape();
    let depth = segments * segment_len;
    if scratch.len() < rows * depth {
        scratch.resize(rows * depth, 0.0);
    }
    let gathered = &mut scratch[..rows * depth];
    for (row, values) in gathered.chunks_exact_mut(depth).enumerate() {
        for (segment, run) in values.chunks_exact_mut(segment_len).enumerate() {
            run.copy_from_slice(&left.segment(row, segment)[..segment_len]);
        }
    }
    let a = ArrayView2::from_shape((rows, depth), &gathered[..]).expect("gathered rows");
    let mut c = ArrayViewMut2::from_shape((rows, b.ncols()), out).expect("output rows");
    general_mat_mul(1.0, &a, b, 1.0, &mut c);
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx2 {
    use std::arch::x86_64::{
        __m256, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };

    use super::LeftRows;

    const LANES: usize = 8;

    /// `b` row-major `[depth, columns]`, `depth` the left operand's.
    #[derive(Clone, Copy)]
    struct Right<'a> {
        b: &'a [f32],
        columns: usize,
    }

    /// # Safety
    /// The CPU has AVX2 and FMA; `b` and `out` hold at least `depth·columns` and
    /// `rows·columns` values, `depth` being `left`'s.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn add_product<L: LeftRows<Value = f32>>(
        left: L,
        rows: usize,
        b: &[f32],
        columns: usize,
        out: &mut [f32],
    ) {
        let right = Right { b, columns };
        let mut row = 0;
        while row < rows {
            // SAFETY: as this function's; each strip covers rows `row..row + R` with
            // `row + R <= rows`.
            row += unsafe {
                match rows - row {
                    6.. => strip::<L, 6, 2>(left, right, out, row),
                    4 | 5 => strip::<L, 4, 3>(left, right, out, row),
                    2 | 3 => strip::<L, 2, 6>(left, right, out, row),
                    _ => strip::<L, 1, 8>(left, right, out, row),
                }
            };
        }
    }

    /// Rows `row..row + R` of the product, `V` vectors of columns at a time, then one, then
    /// the last `columns % 8` one by one. Returns `R`.
    ///
    /// # Safety
    /// As [`add_product`], and `row + R <= rows`.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn strip<L: LeftRows<Value = f32>, const R: usize, const V: usize>(
        left: L,
        right: Right<'_>,
        out: &mut [f32],
        row: usize,
    ) -> usize {
        let Right { b, columns } = right;
        let mut column = 0;
        while column + V * LANES <= columns {
            // SAFETY: as this function's, with `column + V·8 <= columns`.
            unsafe { tile::<L, R, V>(left, right, out, row, column) };
            column += V * LANES;
        }
        while column + LANES <= columns {
            // SAFETY: as this function's, with `column + 8 <= columns`.
            unsafe { tile::<L, R, 1>(left, right, out, row, column) };
            column += LANES;
        }
        if column < columns {
            let (segments, segment_len) = left.shape();
            for r in row..row + R {
                let out_row = &mut out[r * columns + column..(r + 1) * columns];
                for s in 0..segments {
                    let values = &left.segment(r, s)[..segment_len];
                    for (i, &x) in values.iter().enumerate() {
                        let k = s * segment_len + i;
                        let weights = &b[k * columns + column..(k + 1) * columns];
                        for (o, &w) in out_row.iter_mut().zip(weights) {
                            *o = x.mul_add(w, *o);
                        }
                    }
                }
            }
        }
        R
    }

    /// `out[row.., column..]` (`R` rows, `V·8` columns) `+= left[row..] · b[.., column..]`.
    ///
    /// # Safety
    /// As [`add_product`], with `row + R <= rows` and `column + V·8 <= columns`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn tile<L: LeftRows<Value = f32>, const R: usize, const V: usize>(
        left: L,
        right: Right<'_>,
        out: &mut [f32],
        row: usize,
        column: usize,
    ) {
        let Right { b, columns } = right;
        let (segments, segment_len) = left.shape();
        let out_ptr = out.as_mut_ptr();
        let mut acc: [[__m256; V]; R] = [[_mm256_setzero_ps(); V]; R];
        // SAFETY: every offset below is inside its slice by this function's contract: rows
        // `row..row + R` and columns `column..column + V·8` of `out`, the first `segment_len`
        // values of each segment (sliced, so checked), and `segments·segment_len` = depth
        // rows of `b` at columns `column..column + V·8`.
        unsafe {
            for (r, acc) in acc.iter_mut().enumerate() {
                for (v, acc) in acc.iter_mut().enumerate() {
                    *acc = _mm256_loadu_ps(out_ptr.add((row + r) * columns + column + v * LANES));
                }
            }
            let mut b_ptr = b.as_ptr().add(column);
            for s in 0..segments {
                let a_ptrs: [*const f32; R] =
                    std::array::from_fn(|r| left.segment(row + r, s)[..segment_len].as_ptr());
                for k in 0..segment_len {
                    let mut weights = [_mm256_setzero_ps(); V];
                    for (v, w) in weights.iter_mut().enumerate() {
                        *w = _mm256_loadu_ps(b_ptr.add(v * LANES));
                    }
                    for (acc, a_ptr) in acc.iter_mut().zip(&a_ptrs) {
                        let x = _mm256_broadcast_ss(&*a_ptr.add(k));
                        for (acc, w) in acc.iter_mut().zip(&weights) {
                            *acc = _mm256_fmadd_ps(x, *w, *acc);
                        }
                    }
                    b_ptr = b_ptr.add(columns);
                }
            }
            for (r, acc) in acc.iter().enumerate() {
                for (v, acc) in acc.iter().enumerate() {
                    _mm256_storeu_ps(out_ptr.add((row + r) * columns + column + v * LANES), *acc);
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

    use super::LeftRows;

    const LANES: usize = 16;

    /// `b` row-major `[depth, columns]`, `depth` the left operand's.
    #[derive(Clone, Copy)]
    struct Right<'a> {
        b: &'a [f32],
        columns: usize,
    }

    /// # Safety
    /// The CPU has AVX-512F; `b` and `out` hold at least `depth·columns` and `rows·columns`
    /// values, `depth` being `left`'s.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn add_product<L: LeftRows<Value = f32>>(
        left: L,
        rows: usize,
        b: &[f32],
        columns: usize,
        out: &mut [f32],
    ) {
        let right = Right { b, columns };
        // 32 registers: up to 24 accumulators, the weight vectors of one depth step and a
        // broadcast. A 32-channel layer is two vectors wide, so its tile is 12 rows tall; a
        // 64-channel one, four wide and 6 tall; a head layer at batch 1, one row of 8.
        let wide = columns >= 4 * LANES;
        let mut row = 0;
        while row < rows {
            // SAFETY: as this function's; each strip covers rows `row..row + R` with
            // `row + R <= rows`.
            row += unsafe {
                match (wide, rows - row) {
                    (true, 6..) => strip::<L, 6, 4>(left, right, out, row),
                    (true, 4 | 5) => strip::<L, 4, 4>(left, right, out, row),
                    (true, 2 | 3) => strip::<L, 2, 8>(left, right, out, row),
                    (true, _) => strip::<L, 1, 8>(left, right, out, row),
                    (false, 12..) => strip::<L, 12, 2>(left, right, out, row),
                    (false, 8..) => strip::<L, 8, 2>(left, right, out, row),
                    (false, 4..) => strip::<L, 4, 2>(left, right, out, row),
                    (false, 2 | 3) => strip::<L, 2, 2>(left, right, out, row),
                    (false, _) => strip::<L, 1, 2>(left, right, out, row),
                }
            };
        }
    }

    /// Rows `row..row + R` of the product, `V` vectors of columns at a time, then one, then
    /// the last `columns % 16` under a mask. Returns `R`.
    ///
    /// # Safety
    /// As [`add_product`], and `row + R <= rows`.
    #[target_feature(enable = "avx512f")]
    unsafe fn strip<L: LeftRows<Value = f32>, const R: usize, const V: usize>(
        left: L,
        right: Right<'_>,
        out: &mut [f32],
        row: usize,
    ) -> usize {
        let columns = right.columns;
        let mut column = 0;
        // SAFETY (all three loops): as this function's, with the tile's columns inside
        // `columns`; the last tile's mask covers only `columns - column < 16` lanes.
        while column + V * LANES <= columns {
            unsafe { tile::<L, R, V>(left, right, out, row, column, !0) };
            column += V * LANES;
        }
        while column + LANES <= columns {
            unsafe { tile::<L, R, 1>(left, right, out, row, column, !0) };
            column += LANES;
        }
        if column < columns {
            let mask: __mmask16 = (1u16 << (columns - column)) - 1;
            unsafe { tile::<L, R, 1>(left, right, out, row, column, mask) };
        }
        R
    }

    /// `out[row.., column..]` (`R` rows, `V·16` columns, the last vector's lanes under `mask`)
    /// `+= left[row..] · b[.., column..]`.
    ///
    /// # Safety
    /// As [`add_product`], with `row + R <= rows`, `column + (V - 1)·16 + 16 <= columns` for
    /// the lanes `mask` sets (all 16 when `V > 1`).
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn tile<L: LeftRows<Value = f32>, const R: usize, const V: usize>(
        left: L,
        right: Right<'_>,
        out: &mut [f32],
        row: usize,
        column: usize,
        mask: __mmask16,
    ) {
        let Right { b, columns } = right;
        let (segments, segment_len) = left.shape();
        let out_ptr = out.as_mut_ptr();
        let mut acc: [[__m512; V]; R] = [[_mm512_setzero_ps(); V]; R];
        let full = mask == !0;
        // SAFETY: every offset below is inside its slice by this function's contract: rows
        // `row..row + R` and the masked columns from `column` of `out`, the first
        // `segment_len` values of each segment (sliced, so checked), and `segments·segment_len`
        // = depth rows of `b` at the same columns. Masked loads and stores touch no lane
        // outside the mask.
        unsafe {
            for (r, acc) in acc.iter_mut().enumerate() {
                for (v, acc) in acc.iter_mut().enumerate() {
                    let at = out_ptr.add((row + r) * columns + column + v * LANES);
                    *acc = if full { _mm512_loadu_ps(at) } else { _mm512_maskz_loadu_ps(mask, at) };
                }
            }
            let mut b_ptr = b.as_ptr().add(column);
            for s in 0..segments {
                let a_ptrs: [*const f32; R] =
                    std::array::from_fn(|r| left.segment(row + r, s)[..segment_len].as_ptr());
                for k in 0..segment_len {
                    let mut weights = [_mm512_setzero_ps(); V];
                    for (v, w) in weights.iter_mut().enumerate() {
                        *w = if full {
                            _mm512_loadu_ps(b_ptr.add(v * LANES))
                        } else {
                            _mm512_maskz_loadu_ps(mask, b_ptr.add(v * LANES))
                        };
                    }
                    for (acc, a_ptr) in acc.iter_mut().zip(&a_ptrs) {
                        let x = _mm512_set1_ps(*a_ptr.add(k));
                        for (acc, w) in acc.iter_mut().zip(&weights) {
                            *acc = _mm512_fmadd_ps(x, *w, *acc);
                        }
                    }
                    b_ptr = b_ptr.add(columns);
                }
            }
            for (r, acc) in acc.iter().enumerate() {
                for (v, acc) in acc.iter().enumerate() {
                    let at = out_ptr.add((row + r) * columns + column + v * LANES);
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
    use ndarray::Array2;

    use super::*;

    fn filled(rows: usize, columns: usize, seed: u32) -> Array2<f32> {
        Array2::from_shape_fn((rows, columns), |(r, c)| {
            let h = (r as u32).wrapping_mul(2_654_435_761) ^ (c as u32).wrapping_mul(40_503) ^ seed;
            (h % 1000) as f32 / 500.0 - 1.0
        })
    }

    /// Rows of three segments taken from rows of `values` in a scrambled order, or zeros:
    /// what a convolution's taps look like to the kernel.
    #[derive(Clone, Copy)]
    struct Scrambled<'a> {
        values: &'a Array2<f32>,
        zeros: &'a [f32],
    }

    impl LeftRows for Scrambled<'_> {
        type Value = f32;

        fn shape(&self) -> (usize, usize) {
            (3, self.values.ncols())
        }

        fn segment(&self, row: usize, segment: usize) -> &[f32] {
            match (row * 7 + segment * 3) % 5 {
                0 => self.zeros,
                n => self.values.row((row + n) % self.values.nrows()).to_slice().expect("row-major"),
            }
        }
    }

    fn check<L: LeftRows<Value = f32>>(left: L, rows: usize, b: &Array2<f32>) {
        let (segments, segment_len) = left.shape();
        let columns = b.ncols();
        let start = filled(rows, columns, 3);
        let mut scratch = Vec::new();
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.is_supported()).collect();
        let outputs: Vec<(Kernel, Vec<f32>)> = kernels
            .iter()
            .map(|&kernel| {
                let mut out = start.clone().into_raw_vec_and_offset().0;
                add_product(kernel, left, rows, b, &mut out, &mut scratch);
                (kernel, out)
            })
            .collect();
        for r in 0..rows {
            let a_row: Vec<f32> =
                (0..segments).flat_map(|s| left.segment(r, s)[..segment_len].to_vec()).collect();
            for c in 0..columns {
                let expected =
                    start[[r, c]] + a_row.iter().enumerate().map(|(k, x)| x * b[[k, c]]).sum::<f32>();
                for (kernel, out) in &outputs {
                    let found = out[r * columns + c];
                    assert!(
                        (found - expected).abs() < 1e-4,
                        "{kernel:?}: {rows} rows, depth {}, {columns} columns, at ({r}, {c}): {found} != {expected}",
                        a_row.len()
                    );
                }
            }
        }
        // The vector kernels add the same terms in the same order.
        let vector: Vec<&Vec<f32>> =
            outputs.iter().filter(|(k, _)| *k != Kernel::Portable).map(|(_, out)| out).collect();
        for pair in vector.windows(2) {
            assert_eq!(pair[0], pair[1], "AVX2 and AVX-512 differ: {rows} rows, {columns} columns");
        }
    }

    /// Every tile shape and every column remainder, for whole rows and for segmented ones:
    /// every kernel this CPU runs against a plain triple loop.
    #[test]
    fn every_kernel_equals_the_plain_product_for_every_shape() {
        let zeros = vec![0.0; 64];
        for rows in [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 25, 90] {
            for columns in [1, 3, 8, 13, 16, 17, 24, 31, 32, 48, 64, 67, 100, 130] {
                for depth in [1, 9, 32] {
                    let a = filled(rows, depth, 1);
                    let dense = Matrix { values: a.as_slice().expect("row-major"), depth };
                    check(dense, rows, &filled(depth, columns, 2));
                    check(Scrambled { values: &a, zeros: &zeros }, rows, &filled(3 * depth, columns, 4));
                }
            }
        }
    }

    #[test]
    fn kernels_are_named_and_the_best_is_supported() {
        for kernel in Kernel::ALL {
            assert_eq!(Kernel::from_name(kernel.name()), Some(kernel));
        }
        assert_eq!(Kernel::from_name("sse"), None);
        assert!(Kernel::best().is_supported());
        assert!(Kernel::Portable.is_supported());
    }
}
