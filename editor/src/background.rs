//! The background scan under the map: decoded with `image`, uploaded once as an egui
//! texture and drawn at the map's `<background>` position, scale and opacity.
//!
//! The texture is re-made only when the image path or the file on disk (size, modified
//! time) changes. A file that cannot be read or decoded gives an error message (once per
//! change) and no texture; the map draws without it.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use egui::{Color32, Id, Painter, Pos2, Rect, Sense, TextureHandle, TextureOptions, Ui, pos2};

use crate::map_data::BackgroundData;

/// Largest side we upload; bigger scans would exceed common GPU texture limits.
const MAX_SIDE: u32 = 8192;

/// Why a background scan could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("'{0}' is not a path inside the module folder")]
    Outside(String),
    #[error("cannot read '{path}': {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot decode '{path}': {source}")]
    Decode {
        path: String,
        source: image::ImageError,
    },
    #[error("'{path}' is {w}x{h} pixels; the most is {MAX_SIDE} a side")]
    TooLarge { path: String, w: u32, h: u32 },
}

/// What identifies one upload: the path and the file's size and modified time.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    path: PathBuf,
    stamp: Option<(u64, Option<SystemTime>)>,
}

/// The uploaded scan and what it was made from.
#[derive(Default)]
pub struct BackgroundScan {
    key: Option<Key>,
    texture: Option<TextureHandle>,
    error: Option<String>,
}

impl BackgroundScan {
    /// Brings the texture in line with `bg` (relative to module folder `dir`). Returns
    /// an error message when this call found the image unusable (not on later frames).
    pub fn sync(
        &mut self,
        ctx: &egui::Context,
        dir: &Path,
        bg: Option<&BackgroundData>,
    ) -> Option<String> {
        let Some(bg) = bg else {
            *self = Self::default();
            return None;
        };
        let path = muster_core::load::inside_module(&bg.image).map(|rel| dir.join(rel));
        let key = Key {
            stamp: path.as_ref().and_then(|p| {
                std::fs::metadata(p)
                    .ok()
                    .map(|m| (m.len(), m.modified().ok()))
            }),
            path: path.clone().unwrap_or_else(|| PathBuf::from(&bg.image)),
        };
        if self.key.as_ref() == Some(&key) {
            return None;
        }
        self.key = Some(key);
        self.texture = None;
        self.error = None;
        match path
            .ok_or_else(|| ScanError::Outside(bg.image.clone()))
            .and_then(|p| decode(&p, &bg.image))
        {
            Ok(image) => {
                tracing::debug!(image = %bg.image, "background scan uploaded");
                self.texture = Some(ctx.load_texture(
                    format!("background {}", bg.image),
                    image,
                    TextureOptions::LINEAR,
                ));
                None
            }
            Err(e) => {
                let message = format!("background scan: {e}");
                tracing::warn!("{message}");
                self.error = Some(message.clone());
                Some(message)
            }
        }
    }

    /// The texture to draw, when the image loaded.
    pub fn texture(&self) -> Option<&TextureHandle> {
        self.texture.as_ref()
    }

    /// Why the current image is not shown, if it is not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

fn decode(path: &Path, shown: &str) -> Result<egui::ColorImage, ScanError> {
    let bytes = std::fs::read(path).map_err(|source| ScanError::Read {
        path: shown.to_owned(),
        source,
    })?;
    let image = image::load_from_memory(&bytes).map_err(|source| ScanError::Decode {
        path: shown.to_owned(),
        source,
    })?;
    let (w, h) = (image.width(), image.height());
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(ScanError::TooLarge {
            path: shown.to_owned(),
            w,
            h,
        });
    }
    let rgba = image.to_rgba8();
    Ok(egui::ColorImage::from_rgba_unmultiplied(
        [w as usize, h as usize],
        rgba.as_raw(),
    ))
}

/// Where the scan lies on the map, in map units.
pub fn placement(bg: &BackgroundData, texture: &TextureHandle) -> Rect {
    let [w, h] = texture.size();
    let min = pos2(bg.x.unwrap_or(0.0), bg.y.unwrap_or(0.0));
    Rect::from_min_size(min, egui::vec2(w as f32, h as f32) * bg.scale())
}

/// Paints the scan and gives it an accessible node labelled
/// "background scan <path>"; returns the rect it covers.
pub fn draw(ui: &mut Ui, painter: &Painter, bg: &BackgroundData, texture: &TextureHandle) -> Rect {
    let rect = placement(bg, texture);
    let tint = Color32::WHITE.gamma_multiply(bg.opacity());
    painter.image(
        texture.id(),
        rect,
        Rect::from_min_max(Pos2::ZERO, pos2(1.0, 1.0)),
        tint,
    );
    let response = ui.interact(rect, Id::unique("background-scan"), Sense::hover());
    let label = format!("background scan {}", bg.image);
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, &label));
    rect
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(path: &Path, w: u32) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        image::RgbaImage::new(w, 2).save(path).unwrap();
    }

    fn bg(image: &str) -> BackgroundData {
        BackgroundData {
            image: image.into(),
            ..Default::default()
        }
    }

    #[test]
    fn uploads_once_and_again_only_when_path_or_file_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = egui::Context::default();
        png(&tmp.path().join("a.png"), 3);
        png(&tmp.path().join("b.png"), 5);
        let mut scan = BackgroundScan::default();
        assert_eq!(scan.sync(&ctx, tmp.path(), Some(&bg("a.png"))), None);
        let first = scan.texture().unwrap().id();
        assert_eq!(scan.texture().unwrap().size(), [3, 2]);
        scan.sync(&ctx, tmp.path(), Some(&bg("a.png")));
        assert_eq!(
            scan.texture().unwrap().id(),
            first,
            "same file: no re-upload"
        );

        scan.sync(&ctx, tmp.path(), Some(&bg("b.png")));
        assert_eq!(scan.texture().unwrap().size(), [5, 2]);

        // The file changes on disk (a different size, so the stamp differs).
        png(&tmp.path().join("b.png"), 7);
        scan.sync(&ctx, tmp.path(), Some(&bg("b.png")));
        assert_eq!(scan.texture().unwrap().size(), [7, 2]);

        scan.sync(&ctx, tmp.path(), None);
        assert!(scan.texture().is_none());
    }

    #[test]
    fn bad_paths_and_files_are_messages_once() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = egui::Context::default();
        let mut scan = BackgroundScan::default();
        let msg = scan.sync(&ctx, tmp.path(), Some(&bg("../x.png"))).unwrap();
        assert!(msg.contains("not a path inside the module"), "{msg}");
        assert_eq!(scan.sync(&ctx, tmp.path(), Some(&bg("../x.png"))), None);
        assert_eq!(scan.error(), Some(msg.as_str()));

        let msg = scan.sync(&ctx, tmp.path(), Some(&bg("gone.png"))).unwrap();
        assert!(msg.contains("cannot read 'gone.png'"), "{msg}");

        std::fs::write(tmp.path().join("junk.jpg"), b"junk").unwrap();
        let msg = scan.sync(&ctx, tmp.path(), Some(&bg("junk.jpg"))).unwrap();
        assert!(msg.contains("cannot decode 'junk.jpg'"), "{msg}");
        assert!(scan.texture().is_none());
    }

    #[test]
    fn placement_follows_offset_and_scale() {
        let ctx = egui::Context::default();
        let texture = ctx.load_texture(
            "t",
            egui::ColorImage::filled([10, 4], Color32::WHITE),
            TextureOptions::LINEAR,
        );
        let b = BackgroundData {
            image: "a.png".into(),
            x: Some(5.0),
            y: Some(-2.0),
            scale: Some(3.0),
            opacity: None,
        };
        assert_eq!(
            placement(&b, &texture),
            Rect::from_min_size(pos2(5.0, -2.0), egui::vec2(30.0, 12.0))
        );
    }
}
