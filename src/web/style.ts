// The site's one stylesheet, served under a name that carries its content hash (cached for a year).

const CSS = `
:root{--fg:#1d2330;--muted:#5a6270;--line:#d9dde3;--bg:#fff;--soft:#f4f6f8;--accent:#0b5cad;--accent-fg:#fff;--ok:#1d6b37;--bad:#a4262c}
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
a:focus,button:focus,input:focus,select:focus{outline:3px solid #f0b429;outline-offset:1px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px;z-index:2}
header.site{background:var(--soft);border-bottom:1px solid var(--line)}
header.site .bar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;max-width:72rem;margin:0 auto;padding:.75rem 1rem}
header.site .brand{font-weight:700;font-size:1.2rem;color:var(--fg);text-decoration:none;display:flex;align-items:center;gap:.5rem}
header.site .brand img{max-height:2rem}
header.site nav ul{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;margin:0;padding:0}
header.site form[role=search]{margin-left:auto;display:flex;gap:.25rem}
.account{display:flex;gap:.75rem;align-items:center}.account form{margin:0}
button.link{background:none;border:none;color:var(--accent);padding:0;text-decoration:underline;cursor:pointer}
.form{display:grid;gap:.75rem;max-width:32rem}.form label{font-weight:600;display:block}.form input,.form select,.form textarea{width:100%}
.error{color:var(--bad);font-weight:600}.notice{background:#eef6ee;border:1px solid #9cc59c;padding:.5rem .75rem;border-radius:4px}
.field-error{color:var(--bad);font-size:.9rem;margin:.1rem 0 0}
main{max-width:72rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}
footer.site{border-top:1px solid var(--line);color:var(--muted);font-size:.875rem;padding:1rem;text-align:center}
.languages ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;justify-content:center;list-style:none;margin:.5rem 0 0;padding:0}
.languages a[aria-current]{font-weight:700}
h1{font-size:1.75rem;line-height:1.25;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
input[type=search],input[type=text],input[type=password],select,textarea{font:inherit;padding:.4rem .5rem;border:1px solid #8a929e;border-radius:4px;max-width:100%}
button,.button{font:inherit;padding:.4rem .9rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none;display:inline-block}
.muted{color:var(--muted)}
.crumbs{font-size:.875rem;margin:0 0 .5rem;padding:0;list-style:none;display:flex;flex-wrap:wrap;gap:.25rem}
.crumbs li+li::before{content:"/";margin-right:.25rem;color:var(--muted)}
.layout{display:grid;gap:1.5rem;grid-template-columns:1fr}
@media (min-width:48rem){.layout{grid-template-columns:15rem 1fr}}
.facets section{margin-bottom:1rem}
.facets h2{font-size:1rem;margin:.25rem 0}
.facets ul{list-style:none;margin:0;padding:0}
.facets li a{display:flex;justify-content:space-between;gap:.5rem;text-decoration:none;padding:.1rem 0}
.facets li a[aria-current]{font-weight:700}
.count{color:var(--muted);font-variant-numeric:tabular-nums;white-space:nowrap}
.facets li a span:first-child{flex:1 1 auto}
ul.items{list-style:none;margin:0;padding:0}
ul.items>li{border-bottom:1px solid var(--line);padding:.75rem 0}
ul.items h3{font-size:1.1rem;margin:0 0 .25rem}
.tags{display:flex;flex-wrap:wrap;gap:.35rem;list-style:none;margin:.25rem 0;padding:0}
.tags a,.badge{display:inline-block;border:1px solid var(--line);border-radius:1rem;padding:0 .6rem;font-size:.85rem;text-decoration:none;background:var(--soft)}
.badge.private{background:#fff4e5;border-color:#c77700;color:#6b3f00}
.formats{display:inline-flex;gap:.25rem;flex-wrap:wrap}
.pager{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:1rem 0}
.pager a,.pager span{padding:.2rem .6rem;border:1px solid var(--line);border-radius:4px;text-decoration:none}
.pager [aria-current]{background:var(--accent);color:var(--accent-fg);border-color:var(--accent)}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:var(--soft)}
.scroll{overflow-x:auto;max-width:100%}
figure.view{margin:1rem 0}
figure.view img{max-width:100%;height:auto;border:1px solid var(--line)}
figure.view pre.text-view{max-height:30rem;overflow:auto;border:1px solid var(--line);padding:.5rem;margin:0;white-space:pre}
figure.view iframe{width:100%;height:24rem;border:1px solid var(--line)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
input.token{width:100%;font-family:monospace}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0;overflow-wrap:anywhere}
.notes{overflow-wrap:anywhere}
.cards{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));list-style:none;padding:0}
.cards li{border:1px solid var(--line);border-radius:6px;padding:.75rem}
.hero{background:var(--soft);border-radius:6px;padding:1rem 1.25rem;margin-bottom:1rem}
.hero form{display:flex;gap:.5rem;flex-wrap:wrap}
.hero input[type=search]{flex:1 1 16rem}
.stats{display:flex;gap:2rem;list-style:none;padding:0;flex-wrap:wrap}
.stats b{display:block;font-size:1.5rem}
.searchbar{display:flex;gap:.5rem;flex-wrap:wrap;margin-bottom:1rem}
.searchbar input[type=search]{flex:1 1 14rem}
.form fieldset{border:1px solid var(--line);border-radius:4px;margin:0;padding:.5rem .75rem;display:grid;gap:.5rem;min-width:0}
.form legend{font-weight:600;padding:0 .25rem}
.form label.choice{font-weight:400;display:flex;gap:.5rem;align-items:center}
.form label.choice input{width:auto}
.form fieldset.block{background:var(--soft)}
.form button.secondary{background:var(--bg);color:var(--accent);justify-self:start}
.form textarea.mono,pre.json{font-family:monospace}
pre.json{margin:0;white-space:pre-wrap}
.req{text-decoration:none;color:var(--bad)}
ul.plain{margin:0;padding-left:1.1rem}
ol.blocks{margin:0;padding-left:1.25rem;display:grid;gap:.5rem}
input[type=date],input[type=time],input[type=number]{font:inherit;padding:.4rem .5rem;border:1px solid #8a929e;border-radius:4px;max-width:100%}
.map{margin:0 0 1rem}.map>svg[hidden]{display:none}.map>svg{display:block;width:100%;height:auto;border:1px solid #8a929e;border-radius:4px;background:#dcebf5}
.map figcaption{font-size:.875rem;color:var(--muted)}
.map-box{fill:#b3261e;fill-opacity:.15;stroke:#b3261e;stroke-width:1.5;stroke-dasharray:4 2}
.map-geometry{fill:#b3261e;fill-opacity:.35;stroke:#b3261e;stroke-width:1.5;vector-effect:non-scaling-stroke}
.area-filter fieldset{border:0;margin:0;padding:0;display:grid;grid-template-columns:1fr 1fr;gap:.5rem}
.area-filter legend{font-weight:600;margin-bottom:.25rem}
.area-filter label{display:block;font-size:.875rem}.area-filter input{width:100%}
.area-form button.secondary{background:var(--bg);color:var(--accent)}
.area-active{background:#eef6ee;border:1px solid #9cc59c;padding:.25rem .5rem;border-radius:4px}
`

/** FNV-1a, 32 bits, as hex: enough to tell one version of the stylesheet from another. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, '0')
}

export const stylesheet = { text: CSS.trim(), path: `/static/site-${fnv1a(CSS)}.css` }
