// A minimal DOM for the script of `clrtrace dump --flame` (tests/e2e/run_flame.sh):
// three frames over "all", a click on the left one, the reset, a search for
// "Left". Usage: node flame_dom.js SCRIPT.js; prints what it saw.
function El(tag, attrs, kids, text) { this.tag = tag; this.attrs = attrs || {}; this.kids = kids || []; this.textContent = text || ''; this.style = {}; this.listeners = {}; }
El.prototype.getAttribute = function (k) { return this.attrs[k]; };
El.prototype.setAttribute = function (k, v) { this.attrs[k] = String(v); };
El.prototype.getElementsByTagName = function (t) { var out = []; (function walk(e) { e.kids.forEach(function (k) { if (k.tag === t) out.push(k); walk(k); }); })(this); return out; };
El.prototype.addEventListener = function (ev, fn) { this.listeners[ev] = fn; };
El.prototype.appendChild = function (c) { this.kids.push(c); };
function frame(name, pct, x, y, w) { return new El('g', {}, [new El('title', {}, [], name + ' (1 ms, ' + pct + '%)'), new El('rect', {x: x, y: y, width: w, fill: 'rgb(1,2,3)'}), new El('text', {x: x + 3, y: y + 10.5}, [], name)]); }
var frames = new El('g', {id: 'frames'}, [frame('all', 100, 10, 100, 580), frame('A.B.Main', 100, 10, 84, 580), frame('A.B.Left', 50, 10, 68, 290), frame('A.B.Right', 50, 300, 68, 290)]);
var ids = { frames: frames, reset: new El('text'), search: new El('text'), matched: new El('text') };
global.document = { documentElement: new El('svg', {width: '600'}), getElementById: function (i) { return ids[i]; }, createElementNS: function (ns, t) { return new El(t); } };
global.prompt = function () { return 'Left'; };
require(process.argv[2]);
frames.kids[2].listeners.click();
console.log('zoom Left:', JSON.stringify(frames.kids.map(function (g) { var r = g.kids[1]; return [r.attrs.x, r.attrs.width, g.style.display || 'shown']; })));
console.log('reset visible:', ids.reset.style.opacity);
ids.reset.listeners.click();
console.log('after reset:', JSON.stringify(frames.kids.map(function (g) { var r = g.kids[1]; return [r.attrs.x, r.attrs.width, g.style.display || 'shown']; })));
ids.search.listeners.click();
console.log('search:', ids.matched.textContent, frames.kids[2].kids[1].attrs.fill);
