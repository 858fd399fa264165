//! `--svg FILE`: a horizontal bar chart of ratios (other's time / ours), written by hand.

/// One bar: its label and ratio (`None`: not measured, drawn as a note).
pub struct Bar {
    /// The benchmark.
    pub label: String,
    /// The ratio, above 1 when we are faster.
    pub ratio: Option<f64>,
    /// Who the ratio is against (`h5py`, a peer library).
    pub against: String,
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart: one bar per row on a logarithmic axis (1 in the middle of its range, where a
/// dashed line marks parity), green where we are faster, red where slower.
pub fn bar_chart(title: &str, bars: &[Bar]) -> String {
    let (label_w, plot_w, row_h, top) = (330.0, 420.0, 24.0, 48.0);
    let width = label_w + plot_w + 170.0;
    let height = top + row_h * bars.len() as f64 + 40.0;
    // The axis spans [1/m, m] in log scale, m a power of two covering every ratio.
    let extreme = bars
        .iter()
        .filter_map(|b| b.ratio)
        .map(|r| r.max(1.0 / r))
        .fold(2.0f64, f64::max);
    let m = extreme.log2().ceil().max(1.0);
    let x_of = |r: f64| label_w + plot_w * (r.log2() / m + 1.0) / 2.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         font-family=\"sans-serif\" font-size=\"13\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
        escape(title)
    );
    let axis_y = top + row_h * bars.len() as f64 + 4.0;
    for k in -(m as i32)..=(m as i32) {
        let r = 2f64.powi(k);
        let x = x_of(r);
        let label = if k >= 0 {
            format!("{}x", 1u64 << k)
        } else {
            format!("1/{}", 1u64 << -k)
        };
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{top:.1}\" x2=\"{x:.1}\" y2=\"{axis_y:.1}\" stroke=\"#ddd\"/>\n\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{label}</text>\n",
            axis_y + 16.0
        ));
    }
    for (i, b) in bars.iter().enumerate() {
        let y = top + row_h * i as f64;
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            label_w - 8.0,
            y + 16.0,
            escape(&b.label)
        ));
        let one = x_of(1.0);
        match b.ratio {
            Some(r) => {
                let x = x_of(r.clamp(2f64.powf(-m), 2f64.powf(m)));
                let (x0, w) = if x >= one {
                    (one, x - one)
                } else {
                    (x, one - x)
                };
                let color = if r >= 1.0 { "#3a9a4a" } else { "#c8483c" };
                s.push_str(&format!(
                    "<rect x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{color}\"/>\n\
                     <text x=\"{:.1}\" y=\"{:.1}\">{r:.2} vs {}</text>\n",
                    y + 4.0,
                    row_h - 8.0,
                    label_w + plot_w + 8.0,
                    y + 16.0,
                    escape(&b.against)
                ));
            }
            None => s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#777\">not measured</text>\n",
                label_w + plot_w + 8.0,
                y + 16.0
            )),
        }
    }
    let one = x_of(1.0);
    s.push_str(&format!(
        "<line x1=\"{one:.1}\" y1=\"{:.1}\" x2=\"{one:.1}\" y2=\"{axis_y:.1}\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n\
         <text x=\"10\" y=\"{:.1}\" fill=\"#555\">ratio = other's median time / ours (log scale; right of the dashed line: we are faster)</text>\n</svg>\n",
        top - 6.0,
        height - 4.0
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_has_a_bar_per_measured_row_and_escapes_labels() {
        let bars = [
            Bar {
                label: "a < b".into(),
                ratio: Some(2.5),
                against: "h5py".into(),
            },
            Bar {
                label: "slow".into(),
                ratio: Some(0.4),
                against: "x".into(),
            },
            Bar {
                label: "none".into(),
                ratio: None,
                against: String::new(),
            },
        ];
        let s = bar_chart("t", &bars);
        assert_eq!(s.matches("<rect ").count(), 3); // the background and two bars
        assert!(s.contains("a &lt; b"));
        assert!(s.contains("not measured"));
        assert!(s.contains("#c8483c") && s.contains("#3a9a4a"));
    }
}
