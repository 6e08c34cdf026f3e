/** @jsxImportSource hono/jsx */
// Charts drawn on the server as SVG, so they need no script: a bar, line or scatter chart with its
// axes and a table of the same values, a column's histogram and a bar list of its frequent values.
// Pure: data and text in (the caller translates and formats), JSX out; d3 computes scales and paths.
import { max, min } from 'd3-array'
import { scaleBand, scaleLinear, scalePoint, scaleUtc } from 'd3-scale'
import { line, symbol, symbolsFill } from 'd3-shape'

export type ChartType = 'bar' | 'line' | 'scatter'
/** How the x values are placed: on a number line, a time line (x in ms since 1970, UTC) or as categories. */
export type XKind = 'number' | 'time' | 'category'

export interface ChartPoint {
  /** A number for number and time axes, text for categories. */
  x: number | string
  y: number
  /** Where a bar goes (one slot per key; series share a slot side by side): default String(x). */
  key?: string
  xText: string
  yText: string
}

export interface ChartSeries {
  /** '' when the chart has one series. */
  name: string
  points: ChartPoint[]
}

export interface ChartSpec {
  /** Prefix of the element ids (unique on the page). */
  id: string
  type: ChartType
  title: string
  /** The chart in words (the SVG's accessible description). */
  description: string
  xLabel: string
  yLabel: string
  xKind: XKind
  series: ChartSeries[]
  /** The series' column header in the table (when there are several series). */
  seriesLabel?: string
  tableCaption: string
  /** Tick labels of number axes. */
  formatNumber: (n: number) => string
}

/** Series colours: each at least 5:1 against white (WCAG 1.4.11 asks 3:1), told apart by shape too. */
export const SERIES_COLOURS = ['#0b5cad', '#b3261e', '#1d6b37', '#7b3294', '#8a5a00', '#00697a', '#4f5663']
export const MAX_SERIES = SERIES_COLOURS.length
const INK = '#1d2330'
const AXIS = '#5a6270'
const GRID = '#d9dde3'

const W = 640
const M = { top: 34, right: 18, bottom: 56, left: 60 }
// slanted category labels (at most CATEGORY_LABEL characters) need more room below
const CATEGORY_BOTTOM = 106
const CATEGORY_LABEL = 12

/** A label cut to `n` characters. */
const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)
const f2 = (n: number) => String(Math.round(n * 100) / 100)

/** A time tick in ISO form, as precise as the axis' span needs (the same in every language). */
function timeTick(ms: number, span: number): string {
  const iso = new Date(ms).toISOString()
  const day = 86_400_000
  if (span >= 3 * 365 * day) return iso.slice(0, 4)
  if (span >= 90 * day) return iso.slice(0, 7)
  if (span >= 3 * day) return iso.slice(0, 10)
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`
}

/** A domain with some width (a single value is widened by one unit either side). */
function spread([lo, hi]: [number, number]): [number, number] {
  return lo === hi ? [lo - 1, hi + 1] : [lo, hi]
}

interface Tick {
  at: number
  text: string
}

/** The bar, line or scatter chart, and below it a table of the plotted values. */
export function Chart({ spec }: { spec: ChartSpec }) {
  const points = spec.series.flatMap((s) => s.points)
  const category = spec.type === 'bar' || spec.xKind === 'category'
  const H = category ? 390 : 360
  const plot = { left: M.left, right: W - M.right, top: M.top, bottom: H - (category ? CATEGORY_BOTTOM : M.bottom) }
  const ys = points.map((p) => p.y)
  const yLo = min(ys) ?? 0
  const yHi = max(ys) ?? 1
  const yDomain = spec.type === 'bar' ? spread([Math.min(0, yLo), Math.max(0, yHi)]) : spread([yLo, yHi])
  const y = scaleLinear().domain(yDomain).nice(6).range([plot.bottom, plot.top])
  const yTicks: Tick[] = y.ticks(6).map((v) => ({ at: y(v), text: spec.formatNumber(v) }))
  // room on the left for the longest tick label (about 0.6em a character) and the axis title
  // (and, on a category axis, for the first slanted label)
  plot.left = Math.min(180, Math.max(category ? 96 : M.left, Math.round(38 + 8.4 * Math.max(0, ...yTicks.map((tk) => tk.text.length)))))

  // x: slots for bars and categories, else a number or time line
  const keyOf = (p: ChartPoint) => p.key ?? String(p.x)
  const keys: string[] = []
  const labelOf = new Map<string, string>()
  for (const p of points)
    if (!labelOf.has(keyOf(p))) {
      keys.push(keyOf(p))
      labelOf.set(keyOf(p), p.xText)
    }
  let xAt: (p: ChartPoint) => number
  let xTicks: Tick[]
  let band = 0
  if (category) {
    const scale = spec.type === 'bar' ? scaleBand<string>().domain(keys).range([plot.left, plot.right]).padding(0.15) : scalePoint<string>().domain(keys).range([plot.left, plot.right]).padding(0.5)
    band = 'bandwidth' in scale ? scale.bandwidth() : 0
    xAt = (p) => (scale(keyOf(p)) ?? 0) + band / 2
    const every = Math.max(1, Math.ceil(keys.length / 16))
    xTicks = keys.filter((_, i) => i % every === 0).map((k) => ({ at: (scale(k) ?? 0) + band / 2, text: cut(labelOf.get(k) ?? k, CATEGORY_LABEL) }))
  } else {
    const xs = points.map((p) => Number(p.x))
    const domain = spread([min(xs) ?? 0, max(xs) ?? 1])
    if (spec.xKind === 'time') {
      const scale = scaleUtc().domain(domain).range([plot.left, plot.right]).nice()
      const [a, b] = scale.domain().map(Number) as [number, number]
      xAt = (p) => scale(Number(p.x))
      xTicks = scale.ticks(6).map((d) => ({ at: scale(d), text: timeTick(+d, b - a) }))
    } else {
      const scale = scaleLinear().domain(domain).nice(6).range([plot.left, plot.right])
      xAt = (p) => scale(Number(p.x))
      xTicks = scale.ticks(6).map((v) => ({ at: scale(v), text: spec.formatNumber(v) }))
    }
  }

  const several = spec.series.length > 1
  const colour = (i: number) => SERIES_COLOURS[i % SERIES_COLOURS.length]!
  const shape = (i: number) => symbol(symbolsFill[i % symbolsFill.length]!, 48)()!
  const tip = (s: ChartSeries, p: ChartPoint) => `${several ? `${s.name}, ` : ''}${spec.xLabel}: ${p.xText}, ${spec.yLabel}: ${p.yText}`

  // bars of several series share their slot side by side (only those series that have that key)
  const inSlot = new Map<string, number[]>()
  spec.series.forEach((s, i) => {
    for (const p of s.points) {
      const list = inSlot.get(keyOf(p)) ?? []
      if (!list.includes(i)) list.push(i)
      inSlot.set(keyOf(p), list)
    }
  })
  const zero = y(Math.max(yDomain[0], Math.min(0, yDomain[1])))
  const markers = spec.type === 'scatter' || points.length <= 100

  return (
    <figure class="view chart" id={spec.id}>
      <div class="scroll" tabindex={0} role="region" aria-label={spec.title}>
        <svg
          viewBox={`0 0 ${W} ${H}`}
          width={String(W)}
          height={String(H)}
          style="display:block;width:100%;height:auto;min-width:28rem;max-width:52rem"
          role="img"
          aria-labelledby={`${spec.id}-title`}
          aria-describedby={`${spec.id}-desc`}
          font-size="14"
          data-chart-type={spec.type}
        >
          <title id={`${spec.id}-title`}>{spec.title}</title>
          <desc id={`${spec.id}-desc`}>{spec.description}</desc>
          <text x={String(W / 2)} y="20" text-anchor="middle" font-weight="600" fill={INK}>
            {cut(spec.title, 80)}
          </text>
          <g class="y-axis">
            {yTicks.map((tk) => (
              <>
                <line x1={String(plot.left)} x2={String(plot.right)} y1={f2(tk.at)} y2={f2(tk.at)} stroke={GRID} />
                <text x={String(plot.left - 6)} y={f2(tk.at)} dy="0.32em" text-anchor="end" fill={INK}>
                  {tk.text}
                </text>
              </>
            ))}
            <line x1={String(plot.left)} x2={String(plot.left)} y1={String(plot.top)} y2={String(plot.bottom)} stroke={AXIS} />
            <text transform={`translate(16 ${(plot.top + plot.bottom) / 2}) rotate(-90)`} text-anchor="middle" fill={INK}>
              {cut(spec.yLabel, 40)}
            </text>
          </g>
          <g class="x-axis">
            <line x1={String(plot.left)} x2={String(plot.right)} y1={f2(zero)} y2={f2(zero)} stroke={AXIS} />
            {xTicks.map((tk) =>
              category ? (
                <text transform={`translate(${f2(tk.at)} ${plot.bottom + 12}) rotate(-35)`} text-anchor="end" dy="0.32em" fill={INK}>
                  {tk.text}
                </text>
              ) : (
                <>
                  <line x1={f2(tk.at)} x2={f2(tk.at)} y1={String(plot.bottom)} y2={String(plot.bottom + 5)} stroke={AXIS} />
                  {/* the labels at the ends stay inside the drawing */}
                  <text x={f2(tk.at)} y={String(plot.bottom + 18)} text-anchor={tk.at > plot.right - 30 ? 'end' : tk.at < plot.left + 30 ? 'start' : 'middle'} fill={INK}>
                    {tk.text}
                  </text>
                </>
              ),
            )}
            <text x={String((plot.left + plot.right) / 2)} y={String(H - 6)} text-anchor="middle" fill={INK}>
              {cut(spec.xLabel, 60)}
            </text>
          </g>
          <g class="marks">
            {spec.series.map((s, i) => {
              if (spec.type === 'bar')
                return s.points.map((p) => {
                  const slot = inSlot.get(keyOf(p)) ?? [i]
                  const w = band / slot.length
                  const x = xAt(p) - band / 2 + slot.indexOf(i) * w
                  const top = y(p.y)
                  return (
                    <rect class="bar" x={f2(x)} y={f2(Math.min(top, zero))} width={f2(Math.max(w, 0.5))} height={f2(Math.abs(zero - top))} fill={colour(i)}>
                      <title>{tip(s, p)}</title>
                    </rect>
                  )
                })
              const path = spec.type === 'line' ? line<ChartPoint>().x(xAt).y((p) => y(p.y))(s.points) : null
              return (
                <>
                  {path ? <path class="line" d={path} fill="none" stroke={colour(i)} stroke-width="2" data-points={String(s.points.length)} /> : null}
                  {markers
                    ? s.points.map((p) => (
                        <path class="point" d={shape(several ? i : 0)} transform={`translate(${f2(xAt(p))} ${f2(y(p.y))})`} fill={colour(i)} stroke="#fff" stroke-width="0.75">
                          <title>{tip(s, p)}</title>
                        </path>
                      ))
                    : null}
                </>
              )
            })}
          </g>
        </svg>
      </div>
      {several ? (
        <ul class="tags chart-legend" aria-label={spec.seriesLabel}>
          {spec.series.map((s, i) => (
            <li>
              <svg width="14" height="14" viewBox="-7 -7 14 14" aria-hidden="true" focusable="false">
                <path d={shape(i)} fill={colour(i)} />
              </svg>{' '}
              {s.name}
            </li>
          ))}
        </ul>
      ) : null}
      <ChartTable spec={spec} open={points.length <= 20} />
    </figure>
  )
}

/** The plotted values as a table (the chart's text alternative). */
function ChartTable({ spec, open }: { spec: ChartSpec; open: boolean }) {
  const several = spec.series.length > 1
  return (
    <details open={open}>
      <summary>{spec.tableCaption}</summary>
      <div class="scroll" tabindex={0} role="region" aria-label={spec.tableCaption}>
        <table class="chart-data">
          <caption class="visually-hidden">{spec.tableCaption}</caption>
          <thead>
            <tr>
              <th scope="col">{spec.xLabel}</th>
              {several ? <th scope="col">{spec.seriesLabel}</th> : null}
              <th scope="col">{spec.yLabel}</th>
            </tr>
          </thead>
          <tbody>
            {spec.series.flatMap((s) =>
              s.points.map((p) => (
                <tr>
                  <td>{p.xText}</td>
                  {several ? <td>{s.name}</td> : null}
                  <td>{p.yText}</td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      </div>
    </details>
  )
}

export interface HistogramBin {
  fromText: string
  toText: string
  count: number
  countText: string
}

/** A column's histogram: one bar a bin, the ends of its range below, the bins in a table too. */
export function Histogram(props: { label: string; bins: HistogramBin[]; tableLabel: string; headers: [string, string, string] }) {
  const { bins } = props
  const w = 240
  const h = 84
  const x = scaleBand<number>()
    .domain(bins.map((_, i) => i))
    .range([2, w - 2])
    .paddingInner(0.08)
  const y = scaleLinear()
    .domain([0, max(bins, (b) => b.count) || 1])
    .range([h - 22, 4])
  return (
    <div class="histogram">
      <svg viewBox={`0 0 ${w} ${h}`} width={String(w)} height={String(h)} style="display:block;width:100%;max-width:20rem;height:auto" role="img" aria-label={props.label} font-size="11">
        {bins.map((b, i) => (
          <rect class="bin" x={f2(x(i) ?? 0)} y={f2(y(b.count))} width={f2(x.bandwidth())} height={f2(y(0) - y(b.count))} fill={SERIES_COLOURS[0]}>
            <title>{`${b.fromText} – ${b.toText}: ${b.countText}`}</title>
          </rect>
        ))}
        <line x1="0" x2={String(w)} y1={f2(y(0))} y2={f2(y(0))} stroke={AXIS} />
        <text x="2" y={String(h - 6)} fill={INK}>
          {cut(bins[0]?.fromText ?? '', 19)}
        </text>
        <text x={String(w - 2)} y={String(h - 6)} text-anchor="end" fill={INK}>
          {cut(bins[bins.length - 1]?.toText ?? '', 19)}
        </text>
      </svg>
      <details>
        <summary>{props.tableLabel}</summary>
        <table>
          <caption class="visually-hidden">{props.label}</caption>
          <thead>
            <tr>
              {props.headers.map((hd) => (
                <th scope="col">{hd}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {bins.map((b) => (
              <tr>
                <td>{b.fromText}</td>
                <td>{b.toText}</td>
                <td>{b.countText}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  )
}

export interface BarItem {
  label: string
  count: number
  countText: string
}

/** Values with their counts, each with a bar as long as its share of the largest count. */
export function BarList(props: { caption: string; headers: [string, string]; items: BarItem[] }) {
  const top = max(props.items, (i) => i.count) || 1
  return (
    <table class="bar-list">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">{props.headers[0]}</th>
          <th scope="col">{props.headers[1]}</th>
        </tr>
      </thead>
      <tbody>
        {props.items.map((i) => (
          <tr>
            <td>{i.label}</td>
            <td>
              {i.countText}
              <svg width="100%" height="6" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" focusable="false" style="display:block">
                <rect class="share" width={f2((100 * i.count) / top)} height="6" fill={SERIES_COLOURS[0]} />
              </svg>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
