/* roceconf HTML report: the findings table (sort, filter, search), the map (pan/zoom through svg-pan-zoom,
   labels on hover and zoom, groups that open onto their devices) and the details panel. Every value from the
   report is set as text (textContent / attribute values), never parsed as markup. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('data').textContent);
  var svg = document.getElementById('map');
  var nodes = [].slice.call(svg.querySelectorAll('.dev'));
  var det = document.getElementById('details');
  var tip = document.getElementById('tip');
  var table = document.getElementById('ftable');
  var tbody = table ? table.tBodies[0] : null;
  var rows = tbody ? [].slice.call(tbody.rows) : [];
  var hl = document.querySelector('#hl path');
  var RANK = {critical: 0, warning: 1, info: 2, unknown: 3, ok: 4};
  var sel = null, pz = null;

  function mk(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function attr(el, k) { return el.getAttribute(k) || ''; }
  function membersOf(i) { return D.groups[String(i)] || [attr(nodes[i], 'data-name')]; }

  // ------------------------------------------------------------------ details
  function card(it) {
    var c = mk('div', 'card s-' + it.s);
    var head = mk('p', 'what');
    head.appendChild(mk('span', 'sev c-' + it.s, it.s));
    head.appendChild(document.createTextNode(' ' + (it.r ? it.r + ': ' : '') + it.t));
    c.appendChild(head);
    if (it.w) { c.appendChild(mk('p', 'where', it.w)); }
    if (it.d) { c.appendChild(mk('p', 'detail', it.d)); }
    if (it.i) { c.appendChild(mk('p', 'impact', it.i)); }
    if (it.f) { c.appendChild(mk('p', 'fixh', 'fix:')); c.appendChild(mk('pre', 'fix', it.f)); }
    return c;
  }
  function showDevice(name, i) {
    var d = D.devices[name];
    var sec = mk('section', 'device');
    sec.appendChild(mk('h3', null, name + (d && d.st ? ' — ' + d.st : '')));
    if (!d || !d.it.length) { sec.appendChild(mk('p', null, 'No findings.')); }
    else { d.it.forEach(function (it) { sec.appendChild(card(it)); }); }
    var g = D.ecmp ? D.ecmp[name] : null;
    if (g) { sec.appendChild(ecmpBox(g)); }
    return sec;
  }
  function num(v, k) { return v === null || v === undefined ? '-' : Number(v).toFixed(k); }
  function ecmpBox(g) {
    // the device's ECMP group (RC520): its verdict, the spread and each member link's bytes sent per second
    var box = mk('div', 'ecmpbox card s-' + (g.c === 'na' ? 'unknown' : g.c));
    box.appendChild(mk('p', 'what', 'ECMP group: ' + g.s + ' · ' + g.m.length + ' links · max/mean ' + num(g.mom, 2) +
      ' · CV ' + num(g.cv, 2)));
    if (g.r) { box.appendChild(mk('p', 'detail', g.r)); }
    var t = mk('table'), head = t.insertRow();
    ['port', 'to', 'MB/s sent'].forEach(function (h) { head.appendChild(mk('th', null, h)); });
    g.m.forEach(function (m) {
      var r = t.insertRow();
      r.appendChild(mk('td', null, m[0]));
      r.appendChild(mk('td', null, m[1]));
      r.appendChild(mk('td', null, m[2] === null ? 'not read' : num(m[2] / 1e6, 1)));
    });
    box.appendChild(t);
    return box;
  }
  function show(i, member) {
    var el = nodes[i], members = membersOf(i);
    det.textContent = '';
    det.appendChild(mk('h2', null, attr(el, 'data-label')));
    det.appendChild(mk('p', null, attr(el, 'data-platform') + ' · ' + attr(el, 'data-role') + ' · ' + attr(el, 'data-color')));
    if (members.length > 1) {
      var bad = members.filter(function (m) { return D.devices[m]; });
      det.appendChild(mk('p', null, members.length + ' devices, ' + bad.length + ' with findings; worst: ' + attr(el, 'data-color') + '. Click one:'));
      var chips = mk('div', 'chips');
      members.slice().sort(function (a, b) {
        var ca = D.devices[a] ? RANK[D.devices[a].c] : 4, cb = D.devices[b] ? RANK[D.devices[b].c] : 4;
        return ca - cb || (a < b ? -1 : a > b ? 1 : 0);
      }).forEach(function (m) {
        var b = mk('button', 'chip c-' + (D.devices[m] ? D.devices[m].c : 'ok'), m);
        b.type = 'button';
        b.addEventListener('click', function () { show(i, m); markRows(m); });
        chips.appendChild(b);
      });
      det.appendChild(chips);
      if (member) { det.appendChild(showDevice(member, i)); }
      else { bad.forEach(function (m) { det.appendChild(showDevice(m, i)); }); }
    } else {
      det.appendChild(showDevice(members[0], i));
    }
  }

  // ------------------------------------------------------------------ map
  function select(i, member) {
    if (sel !== null) { nodes[sel].classList.remove('sel'); }
    sel = i;
    nodes[i].classList.add('sel');
    var d = '';
    D.links.forEach(function (l) {
      if (l[0] === i || l[1] === i) {
        var a = nodes[l[0]], b = nodes[l[1]];
        d += 'M' + attr(a, 'data-x') + ',' + attr(a, 'data-y') + 'L' + attr(b, 'data-x') + ',' + attr(b, 'data-y');
      }
    });
    hl.setAttribute('d', d);
    show(i, member);
  }
  function focus(i) {
    if (!pz) { return; }
    var s = pz.getSizes(), p = pz.getPan();
    var x = parseFloat(attr(nodes[i], 'data-x')), y = parseFloat(attr(nodes[i], 'data-y'));
    var sx = p.x + x * s.realZoom, sy = p.y + y * s.realZoom, m = 40;
    // names written only when zoomed in (large tiers): zoom in; a map whose names all show (the lab) stays
    // whole when the device is in view, so no tier is cut off under it
    var zoom = s.realZoom < 1.2 && !!svg.querySelector('.hl');
    if (!zoom && sx > m && sx < s.width - m && sy > m && sy < s.height - m) { return; }
    if (zoom) { pz.zoom(pz.getZoom() * 1.2 / s.realZoom); s = pz.getSizes(); }
    pz.pan({x: s.width / 2 - x * s.realZoom, y: s.height / 2 - y * s.realZoom});
  }
  function labels() {
    if (pz) { svg.classList.toggle('zoomed', pz.getSizes().realZoom >= 1.1); }
  }
  if (window.svgPanZoom) {
    pz = window.svgPanZoom(svg, {viewportSelector: '#vp', controlIconsEnabled: true, zoomScaleSensitivity: 0.3,
      minZoom: 0.5, maxZoom: 80, fit: true, center: true, dblClickZoomEnabled: true, onZoom: labels});
    labels();
  }
  nodes.forEach(function (el, i) {
    el.addEventListener('click', function () { select(i); markRows(null, i); });
    el.addEventListener('mouseenter', function () {
      tip.textContent = attr(el, 'data-label') + ' (' + attr(el, 'data-platform') + ') · ' + attr(el, 'data-color');
      tip.hidden = false;
    });
    el.addEventListener('mousemove', function (ev) {
      var r = svg.getBoundingClientRect();
      tip.style.left = (ev.clientX - r.left + 12) + 'px';
      tip.style.top = (ev.clientY - r.top + 12) + 'px';
    });
    el.addEventListener('mouseleave', function () { tip.hidden = true; });
  });

  // ------------------------------------------------------------------ findings table
  function markRows(dev, node) {
    rows.forEach(function (r) {
      var on = dev ? attr(r, 'data-dev') === dev : node !== undefined && attr(r, 'data-node') === String(node);
      r.classList.toggle('cur', !!on);
    });
  }
  rows.forEach(function (r) {
    function pick() {
      var i = parseInt(attr(r, 'data-node'), 10), dev = attr(r, 'data-dev');
      if (isNaN(i)) { return; }
      select(i, membersOf(i).length > 1 ? dev : undefined);
      focus(i);
      markRows(dev);
    }
    r.addEventListener('click', pick);
    r.addEventListener('keydown', function (ev) { if (ev.key === 'Enter') { pick(); } });
  });
  var ths = table ? [].slice.call(table.tHead.rows[0].cells) : [];
  ths.forEach(function (th, col) {
    th.addEventListener('click', function () {
      var k = attr(th, 'data-k'), asc = attr(th, 'aria-sort') !== 'ascending';
      ths.forEach(function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var key = function (r) { return k === 'rank' ? attr(r, 'data-rank') : r.cells[col].textContent; };
      rows.sort(function (a, b) {
        var c = key(a).localeCompare(key(b), undefined, {numeric: true}) || (+attr(a, 'data-i') - +attr(b, 'data-i'));
        return asc ? c : -c;
      });
      rows.forEach(function (r) { tbody.appendChild(r); });
    });
  });
  var fsev = document.getElementById('fsev'), fplat = document.getElementById('fplat'), frule = document.getElementById('frule');
  var fdev = document.getElementById('fdev'), fq = document.getElementById('fq'), fcount = document.getElementById('fcount');
  function filter() {
    var s = fsev.value, p = fplat.value, ru = frule.value, dv = fdev.value.trim().toLowerCase(), q = fq.value.trim().toLowerCase();
    var n = 0;
    rows.forEach(function (r) {
      var ok = (!s || r.classList.contains('s-' + s)) && (!p || attr(r, 'data-plat').split('/').indexOf(p) >= 0) &&
        (!ru || attr(r, 'data-rule') === ru) && (!dv || attr(r, 'data-dev').toLowerCase().indexOf(dv) >= 0) &&
        (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) { n++; }
    });
    fcount.textContent = (n === rows.length ? '' : n + ' of ') + rows.length + ' finding(s)';
    nodes.forEach(function (el) {
      var ok = (!s || attr(el, 'data-color') === s) && (!p || attr(el, 'data-platform').split('/').indexOf(p) >= 0);
      el.classList.toggle('dim', !ok);
    });
  }
  [fsev, fplat, frule].forEach(function (e) { e.addEventListener('change', filter); });
  [fdev, fq].forEach(function (e) { e.addEventListener('input', filter); });

  // ------------------------------------------------------------------ find on the map
  document.getElementById('q').addEventListener('input', function () {
    var q = this.value.trim(), n = 0, first = null, member;
    nodes.forEach(function (el, i) {
      var ms = membersOf(i), hit = !!q && (attr(el, 'data-name').indexOf(q) >= 0 || attr(el, 'data-label').indexOf(q) >= 0 ||
        ms.indexOf(q) >= 0);
      el.classList.toggle('hit', hit);
      if (hit) { n++; if (first === null) { first = i; member = ms.indexOf(q) >= 0 && ms.length > 1 ? q : undefined; } }
    });
    document.getElementById('qres').textContent = q ? n + ' match(es)' : '';
    if (first !== null) { focus(first); if (n === 1) { select(first, member); } }
  });
  svg.dataset.ready = '1';
})();
