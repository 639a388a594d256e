//! PNG copies of the xq charts, for viewers that do not open SVG.
//!
//! Every chart xq draws (plotters' SVG backend) is also rendered to a PNG with the same stem
//! beside it: `ladder.svg` and `ladder.png`. The rendering is done here, in Rust, by resvg, from
//! the SVG text, so the two files always show the same chart. Text is set in DejaVu Sans, which
//! is compiled into this crate (`data/fonts/`): the PNG never depends on the fonts installed on
//! the machine, and a machine without any still gets its labels.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let svg_path = dir.path().join("chart.svg");
//! let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32">
//!   <rect width="64" height="32" fill="white"/>
//!   <text x="4" y="20" font-family="sans-serif" font-size="14">Elo</text>
//! </svg>"#;
//! std::fs::write(&svg_path, svg)?;
//! let png_path = xq_plot::write_png_beside(&svg_path, svg)?;
//! assert_eq!(png_path, dir.path().join("chart.png"));
//! let stats = xq_plot::png_stats(&std::fs::read(&png_path)?)?;
//! assert_eq!((stats.width, stats.height), (128, 64));
//! assert!(stats.dark_pixels > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, fontdb};
use thiserror::Error;

/// DejaVu Sans (see `data/fonts/README.md`), the one face every chart's text is set in.
const FONT: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/fonts/DejaVuSans.ttf"));

/// The family name inside [`FONT`].
const FONT_FAMILY: &str = "DejaVu Sans";

/// Pixels per SVG pixel: the charts are 640–800 px wide, which reads poorly on a high-density
/// screen or in a slide, so the PNG is drawn at twice that.
pub const SCALE: f32 = 2.0;

/// Why a PNG could not be made or written.
#[derive(Debug, Error)]
pub enum PngError {
    /// The SVG text could not be parsed.
    #[error("cannot read the SVG: {0}")]
    Svg(#[from] usvg::Error),
    /// The chart has no area, or is too large for a pixmap.
    #[error("cannot render a {width}×{height} chart at scale {SCALE}")]
    Size {
        /// The SVG's width in pixels.
        width: f32,
        /// The SVG's height in pixels.
        height: f32,
    },
    /// The pixels could not be encoded as PNG.
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
    /// The bytes are not a PNG that can be decoded.
    #[error("cannot decode the PNG: {0}")]
    Decode(String),
    /// The PNG file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The PNG file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The font database holding only [`FONT`], built once per process: parsing the face is the
/// costly part of setting up a render, and every chart uses the same one.
fn fonts() -> Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = fontdb::Database::new();
            db.load_font_source(fontdb::Source::Binary(Arc::new(FONT)));
            // plotters asks for the generic "sans-serif", which fontdb maps to Arial, and usvg
            // falls back to "serif" (Times New Roman): none of them is here, so every generic
            // family names the bundled face.
            db.set_sans_serif_family(FONT_FAMILY);
            db.set_serif_family(FONT_FAMILY);
            db.set_monospace_family(FONT_FAMILY);
            db.set_cursive_family(FONT_FAMILY);
            db.set_fantasy_family(FONT_FAMILY);
            Arc::new(db)
        })
        .clone()
}

/// Renders an SVG document to PNG bytes at [`SCALE`] times its pixel size, with text in the
/// bundled DejaVu Sans.
///
/// # Errors
/// [`PngError::Svg`] for text that is not a usable SVG, [`PngError::Size`] for a chart with no
/// area (or too large), [`PngError::Encode`] if the PNG encoder fails.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, PngError> {
    let options =
        usvg::Options { font_family: FONT_FAMILY.to_owned(), fontdb: fonts(), ..usvg::Options::default() };
    let tree = usvg::Tree::from_str(svg, &options)?;
    let size = tree.size();
    let too_big = || PngError::Size { width: size.width(), height: size.height() };
    let scaled = size.to_int_size().scale_by(SCALE).ok_or_else(too_big)?;
    let mut pixmap = Pixmap::new(scaled.width(), scaled.height()).ok_or_else(too_big)?;
    resvg::render(&tree, Transform::from_scale(SCALE, SCALE), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| PngError::Encode(e.to_string()))
}

/// The PNG that goes with a chart: `<stem>.png` in the SVG's directory.
pub fn png_path(svg_path: &Path) -> PathBuf {
    svg_path.with_extension("png")
}

/// Renders `svg` (the text just written to `svg_path`) with [`svg_to_png`] and writes it to
/// [`png_path`] through [`xq_files::write_atomic`]. Returns the PNG's path.
///
/// # Errors
/// [`svg_to_png`]'s errors, or [`PngError::Write`].
pub fn write_png_beside(svg_path: &Path, svg: &str) -> Result<PathBuf, PngError> {
    let png = svg_to_png(svg)?;
    let path = png_path(svg_path);
    match xq_files::write_atomic(&path, &png) {
        Ok(()) => Ok(path),
        Err(source) => Err(PngError::Write { path, source }),
    }
}

/// What a check needs to know about a PNG: its size and how much ink it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PngStats {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Pixels that are mostly opaque and darker than mid-grey: text, axes and curves, not
    /// the white background or the light grid.
    pub dark_pixels: usize,
}

/// Decodes a PNG and counts its dark pixels, so a test can tell that a chart's text was drawn
/// (compare with the same SVG rendered after [`without_text`]).
///
/// # Errors
/// [`PngError::Decode`] if `png` is not a PNG.
pub fn png_stats(png: &[u8]) -> Result<PngStats, PngError> {
    let pixmap = Pixmap::decode_png(png).map_err(|e| PngError::Decode(e.to_string()))?;
    let dark_pixels = pixmap
        .pixels()
        .iter()
        .filter(|p| {
            let c = p.demultiply();
            c.alpha() > 128 && u32::from(c.red()) + u32::from(c.green()) + u32::from(c.blue()) < 3 * 128
        })
        .count();
    Ok(PngStats { width: pixmap.width(), height: pixmap.height(), dark_pixels })
}

/// The SVG with every `<text>…</text>` element removed (as plotters writes them: an opening
/// and a closing tag): the same chart without its labels.
pub fn without_text(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find("</text>") else {
            // Not an element this function understands: left as it is.
            rest = &rest[start..];
            break;
        };
        rest = &rest[start + end + "</text>".len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LABEL: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50">
<rect width="200" height="50" fill="#FFFFFF"/>
<text x="5" y="35" font-family="sans-serif" font-size="30" fill="#000000">Elo 1234</text>
</svg>"##;

    #[test]
    fn generic_sans_serif_text_is_drawn_with_the_bundled_font() -> Result<(), PngError> {
        let png = svg_to_png(LABEL)?;
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
        let with = png_stats(&png)?;
        let without = png_stats(&svg_to_png(&without_text(LABEL))?)?;
        assert_eq!((with.width, with.height), (400, 100));
        assert_eq!(without.dark_pixels, 0);
        assert!(with.dark_pixels > 1000, "{with:?}");
        Ok(())
    }

    #[test]
    fn bad_svg_is_an_error() {
        assert!(matches!(svg_to_png("not an svg"), Err(PngError::Svg(_))));
        let empty = r#"<svg xmlns="http://www.w3.org/2000/svg" width="0" height="10"/>"#;
        assert!(svg_to_png(empty).is_err());
    }

    #[test]
    fn unwritable_png_is_a_write_error() {
        let missing = Path::new("/nonexistent-xq-plot-dir/chart.svg");
        assert!(matches!(write_png_beside(missing, LABEL), Err(PngError::Write { .. })));
    }

    #[test]
    fn text_elements_are_removed() {
        let svg = "<svg><text a=\"1\">\nx\n</text><line/><text>y</text></svg>";
        assert_eq!(without_text(svg), "<svg><line/></svg>");
        assert_eq!(without_text("<svg><text>x</svg>"), "<svg><text>x</svg>");
    }
}
