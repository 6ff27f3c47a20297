//! Colours and sizes of the map drawing. Every game colour comes from module data;
//! only neutral chrome (outlines, text on a fill, a neutral box) comes from the theme.

use egui::Color32;

/// Size of a box on the board, in map units.
pub const BOX_SIZE: egui::Vec2 = egui::vec2(104.0, 40.0);
/// Size of a unit counter, in map units.
pub const COUNTER_SIZE: egui::Vec2 = egui::vec2(40.0, 18.0);
/// Font size of box names, in map units.
pub const NAME_SIZE: f32 = 12.0;
/// Font size of small marks (recruitment values, counters), in map units.
pub const SMALL_SIZE: f32 = 10.0;

/// Parses `#rrggbb` (or `rrggbb`); `None` for anything else.
pub fn parse_color(text: &str) -> Option<Color32> {
    let hex = text.trim().trim_start_matches('#');
    if hex.len() != 6 || !hex.is_ascii() {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some(Color32::from_rgb(byte(0)?, byte(2)?, byte(4)?))
}

/// Black or white, whichever reads better on `fill`.
pub fn text_on(fill: Color32) -> Color32 {
    let [r, g, b, _] = fill.to_array();
    let luma = 0.299 * f32::from(r) + 0.587 * f32::from(g) + 0.114 * f32::from(b);
    if luma > 140.0 {
        Color32::BLACK
    } else {
        Color32::WHITE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hex_colours_and_refuses_others() {
        assert_eq!(
            parse_color("#2f4f9e"),
            Some(Color32::from_rgb(0x2f, 0x4f, 0x9e))
        );
        assert_eq!(
            parse_color("3a78c8"),
            Some(Color32::from_rgb(0x3a, 0x78, 0xc8))
        );
        assert_eq!(parse_color("#12345"), None);
        assert_eq!(parse_color("#gggggg"), None);
        assert_eq!(parse_color("#ééé"), None);
    }

    #[test]
    fn text_contrasts_with_its_fill() {
        assert_eq!(text_on(Color32::from_rgb(0x2f, 0x4f, 0x9e)), Color32::WHITE);
        assert_eq!(text_on(Color32::from_rgb(0xe0, 0xd0, 0xa0)), Color32::BLACK);
    }
}
