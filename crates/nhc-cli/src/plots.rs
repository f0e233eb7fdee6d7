//! Figures of a sweep: learning curves (mean and standard error of the batch fitness against
//! iterations, log x axis, one line per task), as SVG and PNG.

use anyhow::{Context, Result, anyhow};
use nhc_train::Curve;
use plotters::prelude::*;
use std::path::Path;

/// One task's runs: per run, its learning curve.
pub struct Curves {
    pub task: String,
    pub runs: Vec<Curve>,
}

/// One line of a per-level chart: a task and its (level, value) points.
pub type Series = (String, Vec<(f64, f64)>);

/// A chart over curriculum levels 1–11 (one line with markers per task), as `stem.svg` and
/// `stem.png`.
pub fn per_level(title: &str, y_desc: &str, series: &[Series], stem: &Path) -> Result<()> {
    register()?;
    let top = series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).fold(1.0, f64::max) * 1.1;
    let (svg, png) = (stem.with_extension("svg"), stem.with_extension("png"));
    draw_levels(SVGBackend::new(&svg, (900, 500)).into_drawing_area(), title, y_desc, series, top)
        .with_context(|| format!("cannot write figure {}", svg.display()))?;
    draw_levels(BitMapBackend::new(&png, (900, 500)).into_drawing_area(), title, y_desc, series, top)
        .with_context(|| format!("cannot write figure {}", png.display()))
}

fn draw_levels<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    y_desc: &str,
    series: &[Series],
    top: f64,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.5f64..11.5, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("curriculum level (11 = mixed)")
        .y_desc(y_desc)
        .x_labels(11)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    for (k, (task, points)) in series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), color.stroke_width(2)).point_size(4))
            .map_err(err)?
            .label(task.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    legend_and_present(&mut chart, &root, SeriesLabelPosition::UpperRight)
}

/// Fonts are embedded: no system font library is needed.
fn register() -> Result<()> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| anyhow!("the embedded font did not load"))
}

/// Mean and standard error over runs at iteration `i` (1-based); a run that has ended counts
/// with its last value.
fn mean_se(runs: &[Curve], i: usize) -> (f64, f64) {
    let xs: Vec<f64> = runs.iter().filter_map(|r| r.at(i as u64)).collect();
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = if n > 1.0 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, (var / n).sqrt())
}

/// What a learning-curve figure plots: its title, the y axis' name and top.
pub struct Axis {
    pub title: &'static str,
    pub y_desc: &'static str,
    pub top: f64,
}

/// θ's batch fitness (NES runs).
pub const FITNESS: Axis = Axis {
    title: "Learning curves: batch fitness of θ, mean ± standard error over runs",
    y_desc: "fitness",
    top: 1.02,
};

/// Writes `stem.svg` and `stem.png`: one panel per group of tasks, stacked.
pub fn learning_curves(panels: &[(String, Vec<Curves>)], stem: &Path, axis: &Axis) -> Result<()> {
    register()?;
    let size = (900, 40 + 380 * panels.len().max(1) as u32);
    let (svg, png) = (stem.with_extension("svg"), stem.with_extension("png"));
    draw_panels(SVGBackend::new(&svg, size).into_drawing_area(), panels, axis)
        .with_context(|| format!("cannot write figure {}", svg.display()))?;
    draw_panels(BitMapBackend::new(&png, size).into_drawing_area(), panels, axis)
        .with_context(|| format!("cannot write figure {}", png.display()))
}

fn draw_panels<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    panels: &[(String, Vec<Curves>)],
    axis: &Axis,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let body = root.titled(axis.title, ("sans-serif", 20)).map_err(err)?;
    let longest = panels
        .iter()
        .flat_map(|(_, curves)| {
            curves.iter().flat_map(|c| c.runs.iter().map(|r| r.last_iteration() as usize))
        })
        .max()
        .unwrap_or(1)
        .max(2);
    for (area, (title, curves)) in body.split_evenly((panels.len().max(1), 1)).iter().zip(panels) {
        draw_curves(area, title, curves, longest, axis)?;
    }
    root.present().map_err(err)
}

fn draw_curves<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    curves: &[Curves],
    longest: usize,
    axis: &Axis,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d((1f64..longest as f64).log_scale(), 0f64..axis.top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("iteration")
        .y_desc(axis.y_desc)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(err)?;
    // Log-spaced iterations: about 200 points per curve.
    let points: Vec<usize> = {
        let mut v: Vec<usize> =
            (0..=200).map(|k| (longest as f64).powf(k as f64 / 200.0).round() as usize).collect();
        v.dedup();
        v
    };
    for (k, c) in curves.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let stats: Vec<(f64, f64, f64)> = points
            .iter()
            .map(|&i| {
                let (m, se) = mean_se(&c.runs, i);
                (i as f64, m, se)
            })
            .collect();
        let band: Vec<(f64, f64)> = stats
            .iter()
            .map(|s| (s.0, (s.1 + s.2).min(axis.top)))
            .chain(stats.iter().rev().map(|s| (s.0, (s.1 - s.2).max(0.0))))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.2)))).map_err(err)?;
        chart
            .draw_series(LineSeries::new(stats.iter().map(|s| (s.0, s.1)), color.stroke_width(2)))
            .map_err(err)?
            .label(format!("{} ({} runs)", c.task, c.runs.len()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// Draws the legend at `position`.
fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| anyhow!("drawing failed: {e}"))
}

/// Draws the legend at `position` and writes the figure.
fn legend_and_present<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    root: &DrawingArea<DB, plotters::coord::Shift>,
    position: SeriesLabelPosition,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    legend(chart, position)?;
    root.present().map_err(|e| anyhow!("drawing failed: {e}"))
}

/// The learned behaviour of one sample, like the paper's behaviour figure: per step the written
/// location (black square), the location each read head reads (coloured dot), and below, one
/// strip for the ALU operation and one per head for its read mode. `.svg` or `.png` by extension.
pub fn behaviour(rows: &[nhc_tasks::trace::TraceRow], ops: &[&str], title: &str, path: &Path) -> Result<()> {
    register()?;
    let size = (1000, 600);
    writable(path)?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => draw_behaviour(SVGBackend::new(path, size).into_drawing_area(), rows, ops, title),
        Some("png") => draw_behaviour(BitMapBackend::new(path, size).into_drawing_area(), rows, ops, title),
        _ => Err(anyhow!("the figure file must end in .svg or .png: {}", path.display())),
    }
    .with_context(|| format!("cannot write figure {}", path.display()))
}

/// A figure can go to `path`: it ends in .svg or .png and its directory exists.
pub fn check_figure_path(path: &Path) -> Result<()> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg" | "png") => writable(path),
        _ => Err(anyhow!("the figure file must end in .svg or .png: {}", path.display())),
    }
}

/// The correctness map of `nhc verify` (one panel per two-parameter part): a cell per shape,
/// green where every input of it is right, red where one is wrong. Drawn beside `path` and
/// renamed into place, so a failed drawing leaves nothing half-written.
pub fn correctness_map(parts: &[&nhc_tasks::verify::PartReport], title: &str, path: &Path) -> Result<()> {
    register()?;
    check_figure_path(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(
        ".{name}.partial.{}",
        path.extension().map_or("", |e| e.to_str().unwrap_or(""))
    ));
    let size = (520 * parts.len() as u32 + 40, 560);
    let drawn = match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => draw_maps(SVGBackend::new(&tmp, size).into_drawing_area(), parts, title),
        _ => draw_maps(BitMapBackend::new(&tmp, size).into_drawing_area(), parts, title),
    };
    let done = drawn.and_then(|()| std::fs::rename(&tmp, path).map_err(anyhow::Error::from));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done.with_context(|| format!("cannot write figure {}", path.display()))
}

fn draw_maps<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    parts: &[&nhc_tasks::verify::PartReport],
    title: &str,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let title = format!("{title} (green: every input right, red: an input wrong)");
    let root = root.titled(&title, ("sans-serif", 18)).map_err(err)?;
    let panels = root.split_evenly((1, parts.len()));
    let right = RGBColor(60, 170, 90);
    let wrong = RGBColor(210, 50, 50);
    for (panel, part) in panels.iter().zip(parts) {
        let top = |k: usize| part.cells.iter().map(|c| c.at[k]).max().unwrap_or(1) as f64 + 0.5;
        let failed: u64 = part.failed;
        let caption = format!("{}: {} of {} inputs wrong", part.what, failed, part.inputs);
        let mut chart = ChartBuilder::on(panel)
            .caption(caption, ("sans-serif", 13))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.5f64..top(0), 0.5f64..top(1))
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(part.axes[0].as_str())
            .y_desc(part.axes[1].as_str())
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(err)?;
        let cell = |c: &nhc_tasks::verify::Cell, color: RGBColor| {
            let (x, y) = (c.at[0] as f64, c.at[1] as f64);
            Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], color.filled())
        };
        chart
            .draw_series(part.cells.iter().map(|c| cell(c, if c.failed == 0 { right } else { wrong })))
            .map_err(err)?;
    }
    root.present().map_err(err)
}

/// A figure can go to `path`: its directory exists (plotters' own error would not name it).
fn writable(path: &Path) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        anyhow::bail!("cannot write figure {}: directory {} does not exist", path.display(), dir.display());
    }
    Ok(())
}

/// Read-mode kinds in the order H, F, B, P, C (the letter before the head index).
const MODES: [&str; 5] = ["H", "F", "B", "P", "C"];

fn draw_behaviour<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    rows: &[nhc_tasks::trace::TraceRow],
    ops: &[&str],
    title: &str,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing failed: {e}");
    root.fill(&WHITE).map_err(err)?;
    let heads = rows.first().map_or(0, |r| r.reads.len());
    let top = rows
        .iter()
        .flat_map(|r| r.written.iter().chain(r.reads.iter().map(|x| &x.1)))
        .max()
        .copied()
        .unwrap_or(0);
    let strips = 1 + heads as i64;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..rows.len() as f64 - 0.5, -(strips as f64) - 0.5..top as f64 + 0.5)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("memory location (below: op, read modes)")
        .label_style(("sans-serif", 14))
        .y_label_formatter(&|y| if *y >= 0.0 { format!("{y:.0}") } else { String::new() })
        .draw()
        .map_err(err)?;
    let x = |r: &nhc_tasks::trace::TraceRow| r.step as f64;
    chart
        .draw_series(rows.iter().flat_map(|r| {
            r.written.iter().map(move |w| {
                Rectangle::new([(x(r) - 0.3, *w as f64 - 0.3), (x(r) + 0.3, *w as f64 + 0.3)], BLACK.filled())
            })
        }))
        .map_err(err)?
        .label("written")
        .legend(|(x, y)| Rectangle::new([(x, y - 4), (x + 8, y + 4)], BLACK.filled()));
    for j in 0..heads {
        let color = Palette99::pick(j).to_rgba();
        chart
            .draw_series(rows.iter().map(|r| Circle::new((x(r), r.reads[j].1 as f64), 3, color.filled())))
            .map_err(err)?
            .label(format!("read head {}", j + 1))
            .legend(move |(x, y)| Circle::new((x + 4, y), 3, color.filled()));
    }
    let cell = |step: f64, strip: i64, color: RGBAColor| {
        Rectangle::new(
            [(step - 0.5, -(strip as f64) - 0.45), (step + 0.5, -(strip as f64) + 0.45)],
            color.filled(),
        )
    };
    // Ops: one colour per op, after the head colours.
    for (k, name) in ops.iter().enumerate() {
        let color = Palette99::pick(heads + k).to_rgba();
        chart
            .draw_series(rows.iter().filter(|r| r.op == *name).map(|r| cell(x(r), 1, color)))
            .map_err(err)?
            .label(format!("op {name}"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 8, y + 4)], color.filled()));
    }
    for (m, kind) in MODES.iter().enumerate() {
        let color = Palette99::pick(heads + ops.len() + m).to_rgba();
        for j in 0..heads {
            let cells: Vec<_> = rows
                .iter()
                .filter(|r| r.reads[j].0.starts_with(kind))
                .map(|r| cell(x(r), 2 + j as i64, color))
                .collect();
            let series = chart.draw_series(cells).map_err(err)?;
            if j == 0 {
                series
                    .label(format!("mode {kind}"))
                    .legend(move |(x, y)| Rectangle::new([(x, y - 4), (x + 8, y + 4)], color.filled()));
            }
        }
    }
    legend_and_present(&mut chart, &root, SeriesLabelPosition::UpperLeft)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_standard_error_hold_the_last_value_of_ended_runs() {
        let runs = [Curve::thin(&[0.0, 0.5, 1.0], &[]), Curve::thin(&[0.0, 1.0], &[])];
        assert_eq!(mean_se(&runs, 1), (0.0, 0.0));
        let (m, se) = mean_se(&runs, 3);
        assert_eq!(m, 1.0);
        assert_eq!(se, 0.0);
        let (m, se) = mean_se(&runs, 2);
        assert!((m - 0.75).abs() < 1e-12 && (se - 0.25).abs() < 1e-12, "{m} {se}");
    }
}
