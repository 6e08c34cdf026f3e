/** @jsxImportSource hono/jsx */
// The tabs beside a resource page's DataStore grid: Profile (datastore_info's column profile) and
// Chart (datastore_search's rows or groups drawn by charts.tsx), as plain links and a GET form so
// no script is needed; and chart_view, a chart saved as a resource view, drawn where views show.
// Everything is read through the page's actions, so a table the caller may not read shows nothing.
import { IntlMessageFormat } from 'intl-messageformat'
import { canEditPackage } from '../auth/package'
import { typeFromName } from '../datastore/column-types'
import { SearchError, SearchQueryError, ValidationError } from '../errors'
import { CHART_AGGREGATES, CHART_TYPES, enabledViewType } from '../model/view-types'
import { BarList, Chart, Histogram, MAX_SERIES, type ChartPoint, type ChartSeries, type ChartSpec, type ChartType, type XKind } from './charts'
import { datasetHref } from './components'
import { fieldErrors, formRefused } from './forms'
import type { Locale } from './i18n'
import { call, type Page } from './page'
import { readForm, type Outcome } from './pages/account'
import { CSRF_FIELD } from './session'

type Dict = Record<string, any>
const str = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v))

// ------------------------------------------------------------------ text
// The tabs' own text in the four languages of the site's catalogues (kept here, beside the code
// that uses it; same ICU MessageFormat).
const EN = {
  'tabs.label': 'Ways to see the data',
  'tabs.grid': 'Table',
  'tabs.profile': 'Profile',
  'tabs.chart': 'Chart',
  'profile.heading': 'Column profile',
  'profile.summary': '{rows, plural, one {# row} other {# rows}}, profiled on {date} ({seconds} s).',
  'profile.pending': 'The profile of this table is being computed.',
  'profile.stale': 'This profile describes an earlier version of the table; the profile of the current version is being computed.',
  'profile.reload': 'Reload the page',
  'profile.type': 'Type',
  'profile.count': 'Values',
  'profile.nulls': 'Empty',
  'profile.distinct': 'Distinct values',
  'profile.about': 'about {n}',
  'profile.min': 'Minimum',
  'profile.max': 'Maximum',
  'profile.mean': 'Mean',
  'profile.histogram': 'Distribution of {column}: {n} values from {from} to {to} in {bins} bins; the fullest, from {peakFrom} to {peakTo}, holds {peak}.',
  'profile.histogramTable': 'The distribution as a table',
  'profile.from': 'From',
  'profile.to': 'To',
  'profile.values': 'Values',
  'profile.top': 'Most frequent values of {column}',
  'profile.topEstimated': 'Most frequent values of {column} (estimated from a sample)',
  'profile.value': 'Value',
  'profile.unique': 'Nearly every value is different: no frequent values to list.',
  'profile.none': 'No values.',
  'profile.emptyText': '(empty text)',
  'chart.heading': 'Chart',
  'chart.type': 'Chart type',
  'chart.bar': 'Bars',
  'chart.line': 'Line',
  'chart.scatter': 'Points (scatter)',
  'chart.x': 'X axis (horizontal)',
  'chart.y': 'Y axis (vertical, numbers)',
  'chart.yNone': '(none: count rows)',
  'chart.groupBy': 'Group by: one series for each value of',
  'chart.noGroup': '(no grouping)',
  'chart.aggregate': 'Combine the y values of each x value',
  'chart.agg': '{fn, select, count {count} sum {sum} avg {average} min {minimum} max {maximum} other {do not combine: one point per row}}',
  'chart.draw': 'Draw the chart',
  'chart.measure': '{fn, select, count {Number of values of {y}} sum {Sum of {y}} avg {Average of {y}} min {Minimum of {y}} max {Maximum of {y}} other {{y}}}',
  'chart.rows': 'Number of rows',
  'chart.title': '{y} by {x}',
  'chart.titleSeries': '{title}, for each {group}',
  'chart.desc': '{type, select, bar {Bar chart} line {Line chart} other {Scatter plot}}: {n, plural, one {# value} other {# values}} of {y}, from {min} to {max}, by {x}.',
  'chart.descSeries': '{desc} One series for each {group}: {names}.',
  'chart.truncated': 'Only the first {n} of {total} {groups, select, yes {groups} other {rows}}, in the order of {x}, are shown.',
  'chart.skipped': '{n, plural, one {# row without an x or y value is left out.} other {# rows without an x or y value are left out.}}',
  'chart.nothing': 'There is nothing to plot: no row has both an x and a y value.',
  'chart.table': 'The values of the chart',
  'chart.noValue': '(no value)',
  'chart.invalid': 'The chart cannot be drawn:',
  'chart.err.type': 'Unknown chart type "{value}": choose bars, line or points.',
  'chart.err.column': 'There is no column "{value}" in this table.',
  'chart.err.needX': 'Choose a column for the x axis.',
  'chart.err.needY': 'Choose a number column for the y axis, or combine by count.',
  'chart.err.notNumber': 'Column "{value}" does not hold numbers: the y axis needs a number column (or combining by count).',
  'chart.err.unplottable': 'Column "{value}" holds lists or JSON, which cannot be plotted.',
  'chart.err.aggregate': 'Unknown way to combine values "{value}": choose count, sum, avg, min or max.',
  'chart.err.sameGroup': 'Group by another column than the x axis.',
  'chart.err.series': 'Column "{value}" has more than {n} values among the plotted rows: group by a column with fewer values.',
  'chart.err.search': 'The data cannot be read that way: {message}',
  'chart.save': 'Save as view',
  'chart.saveHeading': 'Save this chart',
  'chart.viewTitle': 'Title of the view',
  'chart.viewError': 'This chart cannot be drawn: {message}',
  'chart.noTable': 'the resource has no DataStore table.',
}
type Key = keyof typeof EN

const FR: Record<Key, string> = {
  'tabs.label': 'Façons de voir les données',
  'tabs.grid': 'Tableau',
  'tabs.profile': 'Profil',
  'tabs.chart': 'Graphique',
  'profile.heading': 'Profil des colonnes',
  'profile.summary': '{rows, plural, one {# ligne} other {# lignes}}, profil calculé le {date} ({seconds} s).',
  'profile.pending': 'Le profil de cette table est en cours de calcul.',
  'profile.stale': 'Ce profil décrit une version antérieure de la table ; celui de la version actuelle est en cours de calcul.',
  'profile.reload': 'Recharger la page',
  'profile.type': 'Type',
  'profile.count': 'Valeurs',
  'profile.nulls': 'Vides',
  'profile.distinct': 'Valeurs distinctes',
  'profile.about': 'environ {n}',
  'profile.min': 'Minimum',
  'profile.max': 'Maximum',
  'profile.mean': 'Moyenne',
  'profile.histogram': 'Répartition de {column} : {n} valeurs de {from} à {to} en {bins} classes ; la plus remplie, de {peakFrom} à {peakTo}, en compte {peak}.',
  'profile.histogramTable': 'La répartition sous forme de tableau',
  'profile.from': 'De',
  'profile.to': 'À',
  'profile.values': 'Valeurs',
  'profile.top': 'Valeurs les plus fréquentes de {column}',
  'profile.topEstimated': 'Valeurs les plus fréquentes de {column} (estimées sur un échantillon)',
  'profile.value': 'Valeur',
  'profile.unique': 'Presque toutes les valeurs sont différentes : aucune valeur fréquente à lister.',
  'profile.none': 'Aucune valeur.',
  'profile.emptyText': '(texte vide)',
  'chart.heading': 'Graphique',
  'chart.type': 'Type de graphique',
  'chart.bar': 'Barres',
  'chart.line': 'Courbe',
  'chart.scatter': 'Points (nuage)',
  'chart.x': 'Axe X (horizontal)',
  'chart.y': 'Axe Y (vertical, nombres)',
  'chart.yNone': '(aucun : compter les lignes)',
  'chart.groupBy': 'Grouper : une série pour chaque valeur de',
  'chart.noGroup': '(pas de groupes)',
  'chart.aggregate': 'Combiner les valeurs Y de chaque valeur X',
  'chart.agg': '{fn, select, count {compter} sum {somme} avg {moyenne} min {minimum} max {maximum} other {ne pas combiner : un point par ligne}}',
  'chart.draw': 'Tracer le graphique',
  'chart.measure': '{fn, select, count {Nombre de valeurs de {y}} sum {Somme de {y}} avg {Moyenne de {y}} min {Minimum de {y}} max {Maximum de {y}} other {{y}}}',
  'chart.rows': 'Nombre de lignes',
  'chart.title': '{y} par {x}',
  'chart.titleSeries': '{title}, pour chaque {group}',
  'chart.desc': '{type, select, bar {Diagramme en barres} line {Courbe} other {Nuage de points}} : {n, plural, one {# valeur} other {# valeurs}} de {y}, de {min} à {max}, selon {x}.',
  'chart.descSeries': '{desc} Une série pour chaque {group} : {names}.',
  'chart.truncated': '{groups, select, yes {Seuls les {n} premiers groupes} other {Seules les {n} premières lignes}} sur {total} (dans l’ordre de {x}) apparaissent.',
  'chart.skipped': '{n, plural, one {# ligne sans valeur X ou Y est laissée de côté.} other {# lignes sans valeur X ou Y sont laissées de côté.}}',
  'chart.nothing': 'Rien à tracer : aucune ligne n’a à la fois une valeur X et une valeur Y.',
  'chart.table': 'Les valeurs du graphique',
  'chart.noValue': '(sans valeur)',
  'chart.invalid': 'Le graphique ne peut pas être tracé :',
  'chart.err.type': 'Type de graphique inconnu « {value} » : choisissez barres, courbe ou points.',
  'chart.err.column': 'Cette table n’a pas de colonne « {value} ».',
  'chart.err.needX': 'Choisissez une colonne pour l’axe X.',
  'chart.err.needY': 'Choisissez une colonne de nombres pour l’axe Y, ou combinez en comptant.',
  'chart.err.notNumber': 'La colonne « {value} » ne contient pas de nombres : l’axe Y demande une colonne de nombres (ou le comptage).',
  'chart.err.unplottable': 'La colonne « {value} » contient des listes ou du JSON, qui ne peuvent pas être tracés.',
  'chart.err.aggregate': 'Combinaison inconnue « {value} » : choisissez count, sum, avg, min ou max.',
  'chart.err.sameGroup': 'Groupez selon une autre colonne que celle de l’axe X.',
  'chart.err.series': 'La colonne « {value} » a plus de {n} valeurs parmi les lignes tracées : groupez selon une colonne qui en a moins.',
  'chart.err.search': 'Les données ne peuvent pas être lues ainsi : {message}',
  'chart.save': 'Enregistrer comme vue',
  'chart.saveHeading': 'Enregistrer ce graphique',
  'chart.viewTitle': 'Titre de la vue',
  'chart.viewError': 'Ce graphique ne peut pas être tracé : {message}',
  'chart.noTable': 'la ressource n’a pas de table DataStore.',
}

const DE: Record<Key, string> = {
  'tabs.label': 'Ansichten der Daten',
  'tabs.grid': 'Tabelle',
  'tabs.profile': 'Profil',
  'tabs.chart': 'Diagramm',
  'profile.heading': 'Spaltenprofil',
  'profile.summary': '{rows, plural, one {# Zeile} other {# Zeilen}}, Profil vom {date} ({seconds} s).',
  'profile.pending': 'Das Profil dieser Tabelle wird gerade berechnet.',
  'profile.stale': 'Dieses Profil beschreibt eine frühere Version der Tabelle; das Profil der aktuellen Version wird gerade berechnet.',
  'profile.reload': 'Seite neu laden',
  'profile.type': 'Typ',
  'profile.count': 'Werte',
  'profile.nulls': 'Leer',
  'profile.distinct': 'Verschiedene Werte',
  'profile.about': 'etwa {n}',
  'profile.min': 'Minimum',
  'profile.max': 'Maximum',
  'profile.mean': 'Mittelwert',
  'profile.histogram': 'Verteilung von {column}: {n} Werte von {from} bis {to} in {bins} Klassen; die vollste, von {peakFrom} bis {peakTo}, enthält {peak}.',
  'profile.histogramTable': 'Die Verteilung als Tabelle',
  'profile.from': 'Von',
  'profile.to': 'Bis',
  'profile.values': 'Werte',
  'profile.top': 'Häufigste Werte von {column}',
  'profile.topEstimated': 'Häufigste Werte von {column} (aus einer Stichprobe geschätzt)',
  'profile.value': 'Wert',
  'profile.unique': 'Fast alle Werte sind verschieden: keine häufigen Werte aufzulisten.',
  'profile.none': 'Keine Werte.',
  'profile.emptyText': '(leerer Text)',
  'chart.heading': 'Diagramm',
  'chart.type': 'Diagrammtyp',
  'chart.bar': 'Balken',
  'chart.line': 'Linie',
  'chart.scatter': 'Punkte (Streudiagramm)',
  'chart.x': 'X-Achse (waagerecht)',
  'chart.y': 'Y-Achse (senkrecht, Zahlen)',
  'chart.yNone': '(keine: Zeilen zählen)',
  'chart.groupBy': 'Gruppieren: eine Reihe für jeden Wert von',
  'chart.noGroup': '(keine Gruppen)',
  'chart.aggregate': 'Y-Werte je X-Wert zusammenfassen',
  'chart.agg': '{fn, select, count {zählen} sum {Summe} avg {Mittelwert} min {Minimum} max {Maximum} other {nicht zusammenfassen: ein Punkt je Zeile}}',
  'chart.draw': 'Diagramm zeichnen',
  'chart.measure': '{fn, select, count {Anzahl der Werte von {y}} sum {Summe von {y}} avg {Mittelwert von {y}} min {Minimum von {y}} max {Maximum von {y}} other {{y}}}',
  'chart.rows': 'Anzahl der Zeilen',
  'chart.title': '{y} nach {x}',
  'chart.titleSeries': '{title}, je {group}',
  'chart.desc': '{type, select, bar {Balkendiagramm} line {Liniendiagramm} other {Streudiagramm}}: {n, plural, one {# Wert} other {# Werte}} von {y}, von {min} bis {max}, nach {x}.',
  'chart.descSeries': '{desc} Eine Reihe je {group}: {names}.',
  'chart.truncated': 'Nur die ersten {n} von {total} {groups, select, yes {Gruppen} other {Zeilen}} (in der Reihenfolge von {x}) werden gezeigt.',
  'chart.skipped': '{n, plural, one {# Zeile ohne X- oder Y-Wert ausgelassen.} other {# Zeilen ohne X- oder Y-Wert ausgelassen.}}',
  'chart.nothing': 'Nichts zu zeichnen: keine Zeile hat sowohl einen X- als auch einen Y-Wert.',
  'chart.table': 'Die Werte des Diagramms',
  'chart.noValue': '(ohne Wert)',
  'chart.invalid': 'Das Diagramm kann nicht gezeichnet werden:',
  'chart.err.type': 'Unbekannter Diagrammtyp „{value}“: wählen Sie Balken, Linie oder Punkte.',
  'chart.err.column': 'Diese Tabelle hat keine Spalte „{value}“.',
  'chart.err.needX': 'Wählen Sie eine Spalte für die X-Achse.',
  'chart.err.needY': 'Wählen Sie eine Zahlenspalte für die Y-Achse oder fassen Sie durch Zählen zusammen.',
  'chart.err.notNumber': 'Die Spalte „{value}“ enthält keine Zahlen: die Y-Achse braucht eine Zahlenspalte (oder das Zählen).',
  'chart.err.unplottable': 'Die Spalte „{value}“ enthält Listen oder JSON, die sich nicht zeichnen lassen.',
  'chart.err.aggregate': 'Unbekannte Zusammenfassung „{value}“: wählen Sie count, sum, avg, min oder max.',
  'chart.err.sameGroup': 'Gruppieren Sie nach einer anderen Spalte als der X-Achse.',
  'chart.err.series': 'Die Spalte „{value}“ hat unter den gezeichneten Zeilen mehr als {n} Werte: gruppieren Sie nach einer Spalte mit weniger Werten.',
  'chart.err.search': 'Die Daten lassen sich so nicht lesen: {message}',
  'chart.save': 'Als Ansicht speichern',
  'chart.saveHeading': 'Dieses Diagramm speichern',
  'chart.viewTitle': 'Titel der Ansicht',
  'chart.viewError': 'Dieses Diagramm kann nicht gezeichnet werden: {message}',
  'chart.noTable': 'die Ressource hat keine DataStore-Tabelle.',
}

const ES: Record<Key, string> = {
  'tabs.label': 'Formas de ver los datos',
  'tabs.grid': 'Tabla',
  'tabs.profile': 'Perfil',
  'tabs.chart': 'Gráfico',
  'profile.heading': 'Perfil de las columnas',
  'profile.summary': '{rows, plural, one {# fila} other {# filas}}, perfil calculado el {date} ({seconds} s).',
  'profile.pending': 'Se está calculando el perfil de esta tabla.',
  'profile.stale': 'Este perfil describe una versión anterior de la tabla; se está calculando el de la versión actual.',
  'profile.reload': 'Volver a cargar la página',
  'profile.type': 'Tipo',
  'profile.count': 'Valores',
  'profile.nulls': 'Vacíos',
  'profile.distinct': 'Valores distintos',
  'profile.about': 'unos {n}',
  'profile.min': 'Mínimo',
  'profile.max': 'Máximo',
  'profile.mean': 'Media',
  'profile.histogram': 'Distribución de {column}: {n} valores de {from} a {to} en {bins} intervalos; el más lleno, de {peakFrom} a {peakTo}, contiene {peak}.',
  'profile.histogramTable': 'La distribución como tabla',
  'profile.from': 'Desde',
  'profile.to': 'Hasta',
  'profile.values': 'Valores',
  'profile.top': 'Valores más frecuentes de {column}',
  'profile.topEstimated': 'Valores más frecuentes de {column} (estimados a partir de una muestra)',
  'profile.value': 'Valor',
  'profile.unique': 'Casi todos los valores son distintos: no hay valores frecuentes que mostrar.',
  'profile.none': 'Sin valores.',
  'profile.emptyText': '(texto vacío)',
  'chart.heading': 'Gráfico',
  'chart.type': 'Tipo de gráfico',
  'chart.bar': 'Barras',
  'chart.line': 'Línea',
  'chart.scatter': 'Puntos (dispersión)',
  'chart.x': 'Eje X (horizontal)',
  'chart.y': 'Eje Y (vertical, números)',
  'chart.yNone': '(ninguno: contar filas)',
  'chart.groupBy': 'Agrupar: una serie por cada valor de',
  'chart.noGroup': '(sin grupos)',
  'chart.aggregate': 'Combinar los valores Y de cada valor X',
  'chart.agg': '{fn, select, count {contar} sum {suma} avg {media} min {mínimo} max {máximo} other {no combinar: un punto por fila}}',
  'chart.draw': 'Dibujar el gráfico',
  'chart.measure': '{fn, select, count {Número de valores de {y}} sum {Suma de {y}} avg {Media de {y}} min {Mínimo de {y}} max {Máximo de {y}} other {{y}}}',
  'chart.rows': 'Número de filas',
  'chart.title': '{y} por {x}',
  'chart.titleSeries': '{title}, por cada {group}',
  'chart.desc': '{type, select, bar {Gráfico de barras} line {Gráfico de líneas} other {Gráfico de dispersión}}: {n, plural, one {# valor} other {# valores}} de {y}, de {min} a {max}, según {x}.',
  'chart.descSeries': '{desc} Una serie por cada {group}: {names}.',
  'chart.truncated': 'Solo se muestran {groups, select, yes {los primeros {n} grupos} other {las primeras {n} filas}} de {total}, en el orden de {x}.',
  'chart.skipped': '{n, plural, one {Se omite # fila sin valor X o Y.} other {Se omiten # filas sin valor X o Y.}}',
  'chart.nothing': 'No hay nada que dibujar: ninguna fila tiene a la vez un valor X y un valor Y.',
  'chart.table': 'Los valores del gráfico',
  'chart.noValue': '(sin valor)',
  'chart.invalid': 'No se puede dibujar el gráfico:',
  'chart.err.type': 'Tipo de gráfico desconocido «{value}»: elija barras, línea o puntos.',
  'chart.err.column': 'Esta tabla no tiene ninguna columna «{value}».',
  'chart.err.needX': 'Elija una columna para el eje X.',
  'chart.err.needY': 'Elija una columna numérica para el eje Y, o combine contando.',
  'chart.err.notNumber': 'La columna «{value}» no contiene números: el eje Y necesita una columna numérica (o contar).',
  'chart.err.unplottable': 'La columna «{value}» contiene listas o JSON, que no se pueden dibujar.',
  'chart.err.aggregate': 'Combinación desconocida «{value}»: elija count, sum, avg, min o max.',
  'chart.err.sameGroup': 'Agrupe por una columna distinta de la del eje X.',
  'chart.err.series': 'La columna «{value}» tiene más de {n} valores entre las filas dibujadas: agrupe por una columna con menos valores.',
  'chart.err.search': 'Los datos no se pueden leer así: {message}',
  'chart.save': 'Guardar como vista',
  'chart.saveHeading': 'Guardar este gráfico',
  'chart.viewTitle': 'Título de la vista',
  'chart.viewError': 'No se puede dibujar este gráfico: {message}',
  'chart.noTable': 'el recurso no tiene tabla DataStore.',
}

/** The tabs' messages by locale (exported for the catalogue test). */
export const TAB_MESSAGES: Record<Locale, Record<Key, string>> = { en: EN, fr: FR, de: DE, es: ES }
type Say = (key: Key, values?: Record<string, string | number>) => string
const compiled = new Map<string, IntlMessageFormat>()

function sayer(page: Page): Say {
  return (key, values) => {
    const id = `${page.locale}\u0000${key}`
    let f = compiled.get(id)
    if (!f) compiled.set(id, (f = new IntlMessageFormat(TAB_MESSAGES[page.locale][key], page.locale, undefined, { ignoreTag: true })))
    return String(f.format(values))
  }
}

// ------------------------------------------------------------------ tabs

export type DatastoreTab = 'grid' | 'profile' | 'chart'
const TABS: DatastoreTab[] = ['grid', 'profile', 'chart']
const CHART_KEYS = ['chart_type', 'x', 'y', 'group_by', 'aggregate'] as const
type ChartKey = (typeof CHART_KEYS)[number]
type ChartConfig = Record<ChartKey, string>

/** The tab a resource page's URL asks for (`?tab=profile`, `?tab=chart`); the grid otherwise. */
export function datastoreTabOf(params: URLSearchParams): DatastoreTab {
  const v = params.get('tab')
  return v === 'profile' || v === 'chart' ? v : 'grid'
}

/** `base`'s URL with those of `keys` the page's URL has (and `tab` first when given). */
function linkKeeping(page: Page, base: string, keys: readonly string[], tab?: DatastoreTab): string {
  const next = new URLSearchParams(tab ? { tab } : {})
  for (const k of keys) {
    const v = page.url.searchParams.get(k)
    if (v) next.set(k, v)
  }
  const qs = next.toString()
  return qs ? `${base}?${qs}` : base
}

/** The tabs as links; the grid keeps its filter, sort and page, the chart its choices. */
export function DatastoreTabNav({ page, base, tab }: { page: Page; base: string; tab: DatastoreTab }) {
  const say = sayer(page)
  const href: Record<DatastoreTab, string> = {
    grid: linkKeeping(page, base, ['q', 'sort', 'page']),
    profile: linkKeeping(page, base, [], 'profile'),
    chart: linkKeeping(page, base, CHART_KEYS, 'chart'),
  }
  return (
    <nav aria-label={say('tabs.label')}>
      <ul class="pager">
        {TABS.map((k) => (
          <li>
            <a href={href[k]} aria-current={k === tab ? 'page' : undefined}>
              {say(`tabs.${k}`)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
}

/** The Profile or Chart tab of the resource `r` of dataset `d` (whose page is `base`). */
export async function datastoreTabPanel(page: Page, tab: Exclude<DatastoreTab, 'grid'>, d: Dict, r: Dict, base: string) {
  return tab === 'profile' ? profilePanel(page, r, base) : chartPanel(page, d, r, base)
}

// ------------------------------------------------------------------ profile

/** A profile's value as text: numbers in the page's language, lists and objects as JSON. */
function shown(page: Page, say: Say, v: unknown): string {
  if (v === null || v === undefined) return say('chart.noValue')
  if (typeof v === 'number') return page.num(v)
  if (v === '') return say('profile.emptyText')
  return typeof v === 'object' ? JSON.stringify(v) : String(v)
}

async function profilePanel(page: Page, r: Dict, base: string) {
  const say = sayer(page)
  const info = await call<Dict>(page, 'datastore_info', { id: r.id, include_profile: true })
  const p: Dict = info.profile ?? { status: 'pending' }
  const reload = `${base}?tab=profile`
  const columns = (p.columns ?? []) as Dict[]
  return (
    <section aria-labelledby="ds-profile-heading">
      <h3 id="ds-profile-heading">{say('profile.heading')}</h3>
      {p.status === 'pending' || p.status === 'stale' ? (
        <p class="notice" role="status">
          {say(p.status === 'pending' ? 'profile.pending' : 'profile.stale')} <a href={reload}>{say('profile.reload')}</a>
        </p>
      ) : null}
      {p.status !== 'pending' ? (
        <>
          <p>{say('profile.summary', { rows: Number(p.rows ?? 0), date: page.date(p.computed, true), seconds: page.num(Number(p.seconds ?? 0)) })}</p>
          <ul class="cards profile" style="grid-template-columns:repeat(auto-fill,minmax(18rem,1fr))">
            {columns.map((c) => (
              <ColumnProfile page={page} say={say} c={c} />
            ))}
          </ul>
        </>
      ) : null}
    </section>
  )
}

function ColumnProfile({ page, say, c }: { page: Page; say: Say; c: Dict }) {
  const column = str(c.id)
  const count = Number(c.count ?? 0)
  const figures: [string, string][] = [
    [say('profile.type'), str(c.type)],
    [say('profile.count'), page.num(count)],
    [say('profile.nulls'), page.num(c.null_count)],
    [say('profile.distinct'), c.distinct_estimated ? say('profile.about', { n: page.num(c.distinct) }) : page.num(c.distinct)],
  ]
  if (c.min !== undefined) figures.push([say('profile.min'), shown(page, say, c.min)])
  if (c.max !== undefined) figures.push([say('profile.max'), shown(page, say, c.max)])
  if (c.mean !== undefined && c.mean !== null) figures.push([say('profile.mean'), page.num(c.mean)])
  const bins = ((c.histogram ?? []) as Dict[]).map((b) => ({ fromText: shown(page, say, b.from), toText: shown(page, say, b.to), count: Number(b.count), countText: page.num(b.count) }))
  const peak = bins.reduce((a, b) => (b.count > a.count ? b : a), bins[0] ?? { fromText: '', toText: '', count: 0, countText: '' })
  const top = (c.top ?? []) as Dict[]
  return (
    <li>
      <h4>{column}</h4>
      <dl class="meta">
        {figures.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
      {bins.length && count ? (
        <Histogram
          bins={bins}
          label={say('profile.histogram', { column, n: page.num(count), from: bins[0]!.fromText, to: bins[bins.length - 1]!.toText, bins: bins.length, peakFrom: peak.fromText, peakTo: peak.toText, peak: peak.countText })}
          tableLabel={say('profile.histogramTable')}
          headers={[say('profile.from'), say('profile.to'), say('profile.values')]}
        />
      ) : null}
      {top.length ? (
        <BarList
          caption={say(c.top_estimated ? 'profile.topEstimated' : 'profile.top', { column })}
          headers={[say('profile.value'), say('profile.values')]}
          items={top.map((x) => ({ label: shown(page, say, x.value), count: Number(x.count), countText: page.num(x.count) }))}
        />
      ) : (
        <p class="muted">{say(count ? 'profile.unique' : 'profile.none')}</p>
      )}
    </li>
  )
}

// ------------------------------------------------------------------ chart

/** At most this many points (rows, or groups) are drawn. */
export const MAX_POINTS = 1000

type Kind = XKind | 'unplottable'
interface Column {
  id: string
  label: string
  type: string
  kind: Kind
}

function kindOf(type: string): Kind {
  let t
  try {
    t = typeFromName(type)
  } catch {
    return 'category'
  }
  if (t.array || t.kind === 'json') return 'unplottable'
  if (t.kind === 'int' || t.kind === 'float' || t.kind === 'numeric') return 'number'
  if (t.kind === 'date' || t.kind === 'timestamp' || t.kind === 'timestamptz') return 'time'
  return 'category'
}

/** The table's columns (without _id), as the caller may read them. */
async function tableColumns(page: Page, r: Dict): Promise<Column[]> {
  const found = await call<Dict>(page, 'datastore_search', { resource_id: r.id, limit: 0, include_total: false })
  return ((found.fields ?? []) as Dict[])
    .filter((f) => f.id !== '_id')
    .map((f) => ({ id: str(f.id), label: str(f.info?.label) || str(f.id), type: str(f.type), kind: kindOf(str(f.type)) }))
}

const configFrom = (get: (k: string) => unknown): ChartConfig =>
  Object.fromEntries(CHART_KEYS.map((k) => [k, str(get(k)).trim()])) as ChartConfig

/** A first chart of a table: a text (else any) column across, its first number column up (else counts). */
function defaultChart(cols: Column[]): ChartConfig {
  const plottable = cols.filter((c) => c.kind !== 'unplottable')
  const x = plottable.find((c) => c.kind !== 'number') ?? plottable[0]
  const y = plottable.find((c) => c.kind === 'number' && c !== x)
  return { chart_type: 'bar', x: x?.id ?? '', y: y?.id ?? '', group_by: '', aggregate: y ? '' : 'count' }
}

/** What is wrong with a chart of these columns, by key (empty: nothing). */
function checkChart(say: Say, cfg: ChartConfig, cols: Column[]): Problems {
  const errors: Problems = {}
  const byId = new Map(cols.map((c) => [c.id, c]))
  const column = (key: ChartKey) => {
    const c = byId.get(cfg[key])
    if (!c) errors[key] = say('chart.err.column', { value: cfg[key] })
    else if (c.kind === 'unplottable') errors[key] = say('chart.err.unplottable', { value: cfg[key] })
    else return c
    return undefined
  }
  if (!(CHART_TYPES as readonly string[]).includes(cfg.chart_type)) errors.chart_type = say('chart.err.type', { value: cfg.chart_type })
  if (cfg.aggregate && !(CHART_AGGREGATES as readonly string[]).includes(cfg.aggregate)) errors.aggregate = say('chart.err.aggregate', { value: cfg.aggregate })
  if (!cfg.x) errors.x = say('chart.err.needX')
  else column('x')
  if (cfg.y) {
    const y = column('y')
    if (y && y.kind !== 'number' && cfg.aggregate !== 'count') errors.y = say('chart.err.notNumber', { value: cfg.y })
  } else if (cfg.aggregate !== 'count') errors.y = say('chart.err.needY')
  if (cfg.group_by) {
    if (cfg.group_by === cfg.x) errors.group_by = say('chart.err.sameGroup')
    else column('group_by')
  }
  return errors
}

const quoted = (id: string) => `"${id.replace(/"/g, '""')}"`

/** A time value (date, or timestamp read as UTC without a zone) in ms, NaN when not one. */
function timeOf(v: unknown): number {
  const s = str(v)
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return Date.parse(`${s}T00:00:00Z`)
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`)
}

type Drawn = { spec: ChartSpec; notes: string[] } | { error: string; key?: ChartKey }
type Problems = Partial<Record<ChartKey | 'data', string>>

/**
 * The chart's data through datastore_search, as the page's caller: the rows (at most MAX_POINTS,
 * in the order of x) or, with an aggregate, one value for each x (and group), then the spec.
 */
async function drawChart(page: Page, say: Say, r: Dict, cfg: ChartConfig, cols: Column[], opts: { id: string; title?: string; description?: string }): Promise<Drawn> {
  const byId = new Map(cols.map((c) => [c.id, c]))
  const x = byId.get(cfg.x)!
  const y = cfg.y ? byId.get(cfg.y) : undefined
  const g = cfg.group_by ? byId.get(cfg.group_by) : undefined
  const fn = cfg.aggregate
  const taken = new Set([x.id, g?.id])
  let as = 'value'
  for (let i = 1; taken.has(as); i++) as = `value_${i}`
  const search: Dict = fn
    ? { group_by: g ? [x.id, g.id] : [x.id], aggregates: [{ function: fn, ...(y ? { column: y.id } : {}), as }] }
    : { fields: [...new Set([x.id, ...(y ? [y.id] : []), ...(g ? [g.id] : [])])], sort: [x, g].filter(Boolean).map((c) => `${quoted(c!.id)} asc`).join(', ') }
  let found: Dict
  try {
    found = await call<Dict>(page, 'datastore_search', { resource_id: r.id, ...search, limit: MAX_POINTS, include_total: true })
  } catch (e) {
    if (e instanceof ValidationError) return { error: say('chart.err.search', { message: Object.values(fieldErrors(e)).flat().join(' ') }) }
    if (e instanceof SearchQueryError || e instanceof SearchError) return { error: say('chart.err.search', { message: e.message }) }
    throw e
  }
  const type = cfg.chart_type as ChartType
  const xKind: XKind = type === 'bar' ? 'category' : (x.kind as XKind)
  const yKey = fn ? as : y!.id
  const series = new Map<string, ChartSeries>()
  let skipped = 0
  ;((found.records ?? []) as Dict[]).forEach((rec, i) => {
    const rawX = rec[x.id]
    const yv = Number(rec[yKey])
    const xv = rawX === null || rawX === undefined ? NaN : xKind === 'number' ? Number(rawX) : xKind === 'time' ? timeOf(rawX) : 0
    if (rec[yKey] === null || rec[yKey] === undefined || !Number.isFinite(yv) || Number.isNaN(xv)) return void skipped++
    const xText = x.kind === 'number' ? page.num(rawX) : shown(page, say, rawX)
    const point: ChartPoint = { x: xKind === 'category' ? str(typeof rawX === 'object' ? JSON.stringify(rawX) : rawX) : xv, y: yv, xText, yText: page.num(yv) }
    // without an aggregate every row has its own bar, even when rows share an x value
    if (type === 'bar' && !fn) point.key = String(i)
    const name = g ? shown(page, say, rec[g.id]) : ''
    let s = series.get(name)
    if (!s) series.set(name, (s = { name, points: [] }))
    s.points.push(point)
  })
  if (series.size > MAX_SERIES) return { error: say('chart.err.series', { value: g!.id, n: MAX_SERIES }), key: 'group_by' }
  const all = [...series.values()]
  const points = all.flatMap((s) => s.points)
  if (!points.length) return { error: say('chart.nothing') }
  const xLabel = x.label
  const yLabel = fn === 'count' && !y ? say('chart.rows') : say('chart.measure', { fn: fn || 'none', y: y!.label })
  let title = say('chart.title', { y: yLabel, x: xLabel })
  if (g) title = say('chart.titleSeries', { title, group: g.label })
  const ys = points.map((p) => p.y)
  let description = say('chart.desc', { type, n: points.length, y: yLabel, min: page.num(Math.min(...ys)), max: page.num(Math.max(...ys)), x: xLabel })
  if (g) description = say('chart.descSeries', { desc: description, group: g.label, names: all.map((s) => s.name).join(', ') })
  const notes: string[] = []
  const total = Number(found.total ?? 0)
  if (total > MAX_POINTS) notes.push(say('chart.truncated', { n: page.num(MAX_POINTS), total: page.num(total), groups: fn ? 'yes' : 'no', x: xLabel }))
  if (skipped) notes.push(say('chart.skipped', { n: skipped }))
  const spec: ChartSpec = {
    id: opts.id,
    type,
    title: opts.title || title,
    description: opts.description ? `${opts.description} ${description}` : description,
    xLabel,
    yLabel,
    xKind,
    series: all,
    seriesLabel: g?.label,
    tableCaption: say('chart.table'),
    formatNumber: (n) => page.num(n),
  }
  return { spec, notes }
}

/** Whoever may call resource_view_create on the dataset (its editors, sysadmins). */
async function mayAddViews(page: Page, d: Dict): Promise<boolean> {
  return !!page.ctx.user && (await canEditPackage(page.ctx, { owner_org: d.owner_org ?? null, id: d.id }))
}

async function chartPanel(page: Page, d: Dict, r: Dict, base: string) {
  const say = sayer(page)
  const cols = await tableColumns(page, r)
  const params = page.url.searchParams
  const cfg = CHART_KEYS.some((k) => params.has(k)) ? configFrom((k) => params.get(k)) : defaultChart(cols)
  const errors = checkChart(say, cfg, cols)
  let drawn: Drawn | null = null
  if (!Object.keys(errors).length) {
    drawn = await drawChart(page, say, r, cfg, cols, { id: 'ds-chart' })
    if ('error' in drawn) errors[drawn.key ?? 'data'] = drawn.error
  }
  const spec = drawn && 'spec' in drawn ? drawn : null
  const canSave = !!spec && !!enabledViewType(page.deps.config, 'chart_view') && (await mayAddViews(page, d))
  const plottable = cols.filter((c) => c.kind !== 'unplottable')
  const field = (key: ChartKey) => (errors[key] ? { 'aria-invalid': 'true', 'aria-describedby': `chart-${key}-error` } : {})
  const fieldError = (key: ChartKey) => (errors[key] ? <p class="field-error" id={`chart-${key}-error`}>{errors[key]}</p> : null)
  const options = (key: ChartKey, list: [string, string][]) => list.map(([value, label]) => <option value={value} selected={cfg[key] === value}>{label}</option>)
  const colOptions = plottable.map((c): [string, string] => [c.id, c.label === c.id ? `${c.id} (${c.type})` : `${c.label} (${c.id}, ${c.type})`])
  return (
    <section aria-labelledby="ds-chart-heading">
      <h3 id="ds-chart-heading">{say('chart.heading')}</h3>
      {Object.keys(errors).length ? (
        <div class="error" role="alert">
          <p>{say('chart.invalid')}</p>
          <ul>
            {Object.values(errors).map((m) => (
              <li>{m}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <form class="form chart-form" method="get" action={base}>
        <input type="hidden" name="tab" value="chart" />
        <div>
          <label for="chart-chart_type">{say('chart.type')}</label>
          <select id="chart-chart_type" name="chart_type" {...field('chart_type')}>
            {options('chart_type', CHART_TYPES.map((k) => [k, say(`chart.${k}`)]))}
          </select>
          {fieldError('chart_type')}
        </div>
        <div>
          <label for="chart-x">{say('chart.x')}</label>
          <select id="chart-x" name="x" {...field('x')}>
            {options('x', colOptions)}
          </select>
          {fieldError('x')}
        </div>
        <div>
          <label for="chart-y">{say('chart.y')}</label>
          <select id="chart-y" name="y" {...field('y')}>
            {options('y', [['', say('chart.yNone')], ...colOptions])}
          </select>
          {fieldError('y')}
        </div>
        <div>
          <label for="chart-aggregate">{say('chart.aggregate')}</label>
          <select id="chart-aggregate" name="aggregate" {...field('aggregate')}>
            {options('aggregate', ['', ...CHART_AGGREGATES].map((fn) => [fn, say('chart.agg', { fn: fn || 'none' })]))}
          </select>
          {fieldError('aggregate')}
        </div>
        <div>
          <label for="chart-group_by">{say('chart.groupBy')}</label>
          <select id="chart-group_by" name="group_by" {...field('group_by')}>
            {options('group_by', [['', say('chart.noGroup')], ...colOptions])}
          </select>
          {fieldError('group_by')}
        </div>
        <button type="submit">{say('chart.draw')}</button>
      </form>
      {spec ? (
        <>
          <Chart spec={spec.spec} />
          {spec.notes.map((n) => (
            <p class="muted">{n}</p>
          ))}
        </>
      ) : null}
      {canSave && spec ? (
        <form class="form" method="post" action={`${base}/new_view`} aria-labelledby="chart-save-heading">
          <h4 id="chart-save-heading">{say('chart.saveHeading')}</h4>
          <input type="hidden" name={CSRF_FIELD} value={page.csrf()} />
          {CHART_KEYS.map((k) => (cfg[k] ? <input type="hidden" name={k} value={cfg[k]} /> : null))}
          <div>
            <label for="chart-view-title">{say('chart.viewTitle')}</label>
            <input type="text" id="chart-view-title" name="title" value={spec.spec.title} required />
          </div>
          <button type="submit">{say('chart.save')}</button>
        </form>
      ) : null}
    </section>
  )
}

// ------------------------------------------------------------------ chart_view

/** The resource's chart views, each drawn where the page shows views (its problem in its place). */
export async function chartViews(page: Page, views: Dict[], r: Dict) {
  const shownViews = views.filter((v) => v.view_type === 'chart_view')
  if (!shownViews.length) return null
  const say = sayer(page)
  const cols = r.datastore_active ? await tableColumns(page, r) : []
  const figures = []
  for (const v of shownViews) {
    const id = `view-${str(v.id)}`
    const title = str(v.title) || say('chart.heading')
    const cfg = configFrom((k) => v[k])
    const problems = r.datastore_active ? Object.values(checkChart(say, cfg, cols)) : [say('chart.noTable')]
    const drawn: Drawn = problems.length ? { error: problems.join(' ') } : await drawChart(page, say, r, cfg, cols, { id, title, description: str(v.description) })
    figures.push(
      'spec' in drawn ? (
        <div class="chart-view">
          <Chart spec={drawn.spec} />
          {drawn.notes.map((n) => (
            <p class="muted">{n}</p>
          ))}
        </div>
      ) : (
        <figure class="view chart" id={id}>
          <p role="alert">{say('chart.viewError', { message: drawn.error })}</p>
          <figcaption>{title}</figcaption>
        </figure>
      ),
    )
  }
  return <section class="chart-views">{figures}</section>
}

/**
 * POST `<resource page>/new_view`: the Chart tab's "Save as view". The chart's keys are checked
 * against the table (a bad chart goes back to the tab, which says why), then resource_view_create
 * runs as the caller: whoever may not create views gets the usual refusal.
 */
export async function saveChartView(page: Page, id: string, rid: string): Promise<Outcome | null> {
  const form = await readForm(page)
  const refused = formRefused(page, form)
  if (refused) return refused
  const d = await call<Dict>(page, 'package_show', { id })
  const r = ((d.resources ?? []) as Dict[]).find((x) => x.id === rid)
  if (!r || !r.datastore_active) return null
  if (!(await mayAddViews(page, d))) return null
  const base = `${datasetHref(d)}/resource/${encodeURIComponent(r.id)}`
  const cfg = configFrom((k) => form[k])
  if (Object.keys(checkChart(sayer(page), cfg, await tableColumns(page, r))).length) {
    const back = new URLSearchParams({ tab: 'chart' })
    for (const k of CHART_KEYS) if (cfg[k]) back.set(k, cfg[k])
    return { redirect: `${base}?${back}` }
  }
  const keys = Object.fromEntries(CHART_KEYS.filter((k) => cfg[k]).map((k) => [k, cfg[k]]))
  const title = str(form.title).trim() || sayer(page)('chart.heading')
  const view = await call<Dict>(page, 'resource_view_create', { resource_id: r.id, view_type: 'chart_view', title, ...keys })
  return { redirect: `${base}#view-${encodeURIComponent(str(view.id))}` }
}
