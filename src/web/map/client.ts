// The pages' map script: turns each server-drawn map (<figure data-map>) into a Leaflet map. The
// world's land comes from this site as GeoJSON; a tile layer is added only when the site names a
// tile URL (ckanext.spatial.common_map.*), so without one the browser asks no tile server for
// anything. On the search page a "Draw a box" button lets the visitor drag a box on the map,
// which fills the area form's four fields; the form is still what applies the filter.
import { LEAFLET_CSS, LEAFLET_JS, LEAFLET_VERSION } from './leaflet-dist'

const SCRIPT = `(function () {
  'use strict';
  var L = window.L;
  if (!L || !document.querySelectorAll) return;
  var STYLE = { color: '#b3261e', weight: 2, fillColor: '#b3261e', fillOpacity: 0.2 };
  var esc = function (s) { return String(s).replace(/[&<>"']/g, function (c) { return '&#' + c.charCodeAt(0) + ';'; }); };
  var wrap = function (lng) { return lng >= -180 && lng <= 180 ? lng : ((((lng + 180) % 360) + 360) % 360) - 180; };
  var round = function (n) { return String(Math.round(n * 10000) / 10000); };
  var maps = document.querySelectorAll('figure[data-map]');
  for (var i = 0; i < maps.length; i++) init(maps[i]);

  function init(fig) {
    var cfg = {};
    try { cfg = JSON.parse(fig.getAttribute('data-map-config') || '{}'); } catch (e) { cfg = {}; }
    var svg = fig.querySelector('svg');
    var div = document.createElement('div');
    div.className = 'map-js';
    fig.insertBefore(div, fig.firstChild);
    var map = L.map(div, { worldCopyJump: false, minZoom: 0, maxZoom: 18, zoomSnap: 0.5 });
    map.getContainer().setAttribute('aria-label', fig.getAttribute('data-map-label') || '');
    map.getContainer().setAttribute('role', 'region');
    if (svg) svg.setAttribute('hidden', '');
    if (cfg.url) {
      L.tileLayer(cfg.url, {
        subdomains: cfg.subdomains || 'abc',
        tms: !!cfg.tms,
        maxZoom: 18,
        attribution: cfg.attribution ? esc(cfg.attribution) : ''
      }).addTo(map);
    } else {
      div.className += ' map-js-plain';
    }
    var land = fig.getAttribute('data-land');
    if (land && !cfg.url) {
      fetch(land).then(function (r) { return r.ok ? r.json() : null; }).then(function (g) {
        if (!g) return;
        L.geoJSON(g, { interactive: false, style: { color: '#8f9aa5', weight: 1, fillColor: '#f4f1e8', fillOpacity: 1 } }).addTo(map).bringToBack();
      }).catch(function () {});
    }
    var extent = fig.getAttribute('data-extent');
    var bbox = fig.getAttribute('data-bbox');
    var shown = null;
    if (extent) {
      shown = L.geoJSON(JSON.parse(extent), {
        style: STYLE,
        pointToLayer: function (f, ll) { return L.circleMarker(ll, { radius: 6, color: STYLE.color, weight: 2, fillOpacity: 0.5 }); }
      }).addTo(map);
    } else if (bbox) {
      shown = boxLayer(bbox.split(',').map(Number)).addTo(map);
    }
    if (shown && shown.getBounds().isValid()) map.fitBounds(shown.getBounds(), { maxZoom: cfg.url ? 10 : 5, padding: [20, 20] }); // the land drawing is coarse (1:110m)
    else map.fitWorld();
    if (fig.getAttribute('data-map') === 'search') drawing(fig, map, shown);
  }

  function boxLayer(b) {
    var w = b[0], s = b[1], e = b[2], n = b[3];
    if (w > e) e += 360; // across the antimeridian: drawn eastward from west
    return L.rectangle([[s, w], [n, e]], STYLE);
  }

  function drawing(fig, map, shown) {
    var form = document.getElementById(fig.getAttribute('data-form') || '');
    if (!form) return;
    var fields = ['west', 'south', 'east', 'north'].map(function (k) { return form.querySelector('[data-part=' + k + ']'); });
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.setAttribute('aria-pressed', 'false');
    button.textContent = fig.getAttribute('data-draw-label') || 'Draw a box';
    var submit = form.querySelector('button[type=submit]');
    submit.parentNode.insertBefore(button, submit);
    submit.parentNode.insertBefore(document.createTextNode(' '), submit);
    var on = false, start = null, rect = shown;
    var stop = function () {
      on = false; start = null;
      button.setAttribute('aria-pressed', 'false');
      map.dragging.enable();
      map.getContainer().style.cursor = '';
    };
    button.addEventListener('click', function () {
      if (on) return stop();
      on = true;
      button.setAttribute('aria-pressed', 'true');
      map.dragging.disable();
      map.getContainer().style.cursor = 'crosshair';
    });
    map.on('mousedown', function (ev) {
      if (!on) return;
      start = ev.latlng;
      if (rect) map.removeLayer(rect);
      rect = L.rectangle([start, start], STYLE).addTo(map);
    });
    map.on('mousemove', function (ev) {
      if (on && start) rect.setBounds(L.latLngBounds(start, ev.latlng));
    });
    map.on('mouseup', function (ev) {
      if (!on || !start) return;
      var b = L.latLngBounds(start, ev.latlng);
      var w = b.getWest(), e = b.getEast();
      if (e - w >= 360) { w = -180; e = 180; } else { w = wrap(w); e = wrap(e); }
      var s = Math.max(-90, b.getSouth()), n = Math.min(90, b.getNorth());
      var v = [w, s, e, n];
      for (var k = 0; k < 4; k++) if (fields[k]) fields[k].value = round(v[k]);
      stop();
      if (submit) submit.focus();
    });
  }
})();
`

/** FNV-1a, 32 bits, as hex: tells one version of a file from another in its URL. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, '0')
}

const CSS = `${LEAFLET_CSS}
.map-js{width:100%;aspect-ratio:2/1;max-height:28rem;border:1px solid #8a929e;border-radius:4px}
.map-js.map-js-plain{background:#dcebf5}
.area-filter .map-js{aspect-ratio:auto;height:14rem}
`

/** The files a page with a map loads (served under /static/, where links keep no locale prefix). */
export const mapAssets = {
  leafletJs: { path: `/static/leaflet-${LEAFLET_VERSION}/leaflet.js`, text: LEAFLET_JS, type: 'text/javascript; charset=utf-8' },
  css: { path: `/static/map-${fnv1a(CSS)}.css`, text: CSS, type: 'text/css; charset=utf-8' },
  script: { path: `/static/map-${fnv1a(SCRIPT)}.js`, text: SCRIPT, type: 'text/javascript; charset=utf-8' },
}
