// The flame graph of `clrtrace dump --flame` in a real browser: Debian's
// chromium, headless, driven over its DevTools protocol through a pipe
// (--remote-debugging-pipe: no TCP port is opened at all; the messages go
// over file descriptors 3 and 4, NUL-terminated JSON). No npm package.
//
// Usage: node flame_browser.js SVG FRAME SEARCH SHOT-PREFIX
//   opens SVG (file://), clicks the first frame named FRAME (a real mouse
//   click at its centre), clicks "Reset zoom", clicks "Search" and answers
//   the prompt with SEARCH; reads the frames back after each step and
//   prints, one line each:
//     load: [[name, x, width], ...]     every frame in document order (x and
//                                      width to 1 decimal; [name, "none"]
//                                      for a hidden frame)
//     zoom FRAME: [...]                after the click on FRAME
//     reset visible: OPACITY           the "Reset zoom" control's opacity
//     after reset: [...]               after the click on "Reset zoom"
//     reset hidden: OPACITY
//     search: MATCHED-TEXT             the "matched" text after the search
//     highlighted: [names]             frames filled rgb(230,0,230)
//     fills kept: N of M               other frames with their load fill
//     page errors: none | ERRORS       exceptions thrown by the page's script
//   Screenshots: SHOT-PREFIX-zoom.png (zoomed), SHOT-PREFIX.png (searched).
// Environment: CHROMIUM (default: chromium), FLAME_BROWSER_TIMEOUT (seconds,
// default 90: the whole run; chromium is killed at the end in any case).
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [svg, frameName, search, shot] = process.argv.slice(2);
if (!svg || !frameName || !search || !shot) {
    console.error('usage: node flame_browser.js SVG FRAME SEARCH SHOT-PREFIX');
    process.exit(2);
}
const limit = 1000 * Number(process.env.FLAME_BROWSER_TIMEOUT || 90);
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'clrtrace-chromium-'));
let browser = null;
let finished = false, closing = false;

function finish(code, message) {
    if (finished) return;
    finished = true;
    if (message) console.error('flame_browser.js: ' + message);
    // chromium and its helpers (renderer, zygote) are one process group.
    if (browser && browser.pid) {
        try { process.kill(-browser.pid, 'SIGKILL'); } catch (e) { /* gone already */ }
    }
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* best effort */ }
    process.exit(code);
}
process.on('SIGTERM', () => finish(1, 'terminated'));
process.on('SIGINT', () => finish(1, 'interrupted'));
process.on('uncaughtException', (e) => finish(1, String(e && e.stack || e)));
process.on('unhandledRejection', (e) => finish(1, String(e && e.stack || e)));
const watchdog = setTimeout(() => finish(1, 'no result within ' + limit / 1000 + ' s'), limit);

browser = spawn(process.env.CHROMIUM || 'chromium', [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--user-data-dir=' + profile,
    '--remote-debugging-pipe', '--no-first-run', '--no-default-browser-check',
    '--disable-extensions', '--disable-background-networking', '--disable-sync',
    '--disable-component-update', '--disable-default-apps', '--mute-audio',
    '--hide-scrollbars', '--window-size=800,400', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true });
let stderr = '';
browser.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
browser.on('error', (e) => finish(1, 'cannot start chromium: ' + e.message));
browser.on('exit', (code, sig) => {
    if (!finished && !closing) finish(1, 'chromium ended (' + (sig || code) + ') before the checks: ' + stderr.trim().split('\n').slice(-5).join(' | '));
});

// ------------------------------------------------------- the protocol
const toBrowser = browser.stdio[3], fromBrowser = browser.stdio[4];
let nextId = 1, pending = new Map(), listeners = [], buffered = '';
fromBrowser.on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    let end;
    while ((end = buffered.indexOf('\0')) >= 0) {
        const msg = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (msg.id && pending.has(msg.id)) {
            const p = pending.get(msg.id);
            pending.delete(msg.id);
            if (msg.error) p.reject(new Error(p.method + ': ' + JSON.stringify(msg.error)));
            else p.resolve(msg.result);
        } else if (msg.method) {
            listeners.slice().forEach((l) => l(msg));
        }
    }
});
function send(method, params, sessionId) {
    const id = nextId++;
    const msg = { id, method, params: params || {} };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, method });
        toBrowser.write(JSON.stringify(msg) + '\0');
    });
}
function once(method, sessionId) {
    return new Promise((resolve) => {
        const l = (msg) => {
            if (msg.method === method && (!sessionId || msg.sessionId === sessionId)) {
                listeners = listeners.filter((x) => x !== l);
                resolve(msg.params);
            }
        };
        listeners.push(l);
    });
}

// -------------------------------------------------------------- the page
async function main() {
    const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    const page = (method, params) => send(method, params, sessionId);
    await page('Page.enable');
    await page('Runtime.enable');
    await page('Emulation.setDeviceMetricsOverride', { width: 800, height: 400, deviceScaleFactor: 1, mobile: false });
    // The search's prompt() is answered as a user would.
    listeners.push((msg) => {
        if (msg.method === 'Page.javascriptDialogOpening' && msg.sessionId === sessionId)
            page('Page.handleJavaScriptDialog', { accept: true, promptText: search });
    });
    // Errors of the page's own script fail the run.
    const pageErrors = [];
    listeners.push((msg) => {
        if (msg.method === 'Runtime.exceptionThrown' && msg.sessionId === sessionId)
            pageErrors.push(msg.params.exceptionDetails.exception
                ? msg.params.exceptionDetails.exception.description : msg.params.exceptionDetails.text);
    });
    const loaded = once('Page.loadEventFired', sessionId);
    const nav = await page('Page.navigate', { url: 'file://' + path.resolve(svg) });
    if (nav.errorText) throw new Error('navigate: ' + nav.errorText);
    await loaded;

    const evaluate = async (expr) => {
        const r = await page('Runtime.evaluate', { expression: expr, returnByValue: true });
        if (r.exceptionDetails) throw new Error('evaluate: ' + JSON.stringify(r.exceptionDetails));
        return r.result.value;
    };
    const geometry = () => evaluate(`JSON.stringify(Array.from(document.getElementById('frames').children).map(function (g) {
        var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('title')[0].textContent;
        var name = t.replace(/ \\([^()]*\\)$/, '');
        return g.style.display === 'none' ? [name, 'none'] :
            [name, parseFloat(r.getAttribute('x')).toFixed(1), parseFloat(r.getAttribute('width')).toFixed(1)];
    }))`);
    // click(EXPR): a real mouse click at the centre of the element EXPR finds.
    const click = async (expr) => {
        const c = JSON.parse(await evaluate(`(function () { var e = ${expr};
            if (!e) return 'null'; var b = e.getBoundingClientRect();
            return JSON.stringify([b.left + b.width / 2, b.top + b.height / 2]); })()`));
        if (!c) throw new Error('nothing to click: ' + expr);
        const at = { x: c[0], y: c[1] };
        await page('Input.dispatchMouseEvent', Object.assign({ type: 'mouseMoved' }, at));
        await page('Input.dispatchMouseEvent', Object.assign({ type: 'mousePressed', button: 'left', clickCount: 1 }, at));
        await page('Input.dispatchMouseEvent', Object.assign({ type: 'mouseReleased', button: 'left', clickCount: 1 }, at));
    };
    const screenshot = async (file) => {
        const { data } = await page('Page.captureScreenshot', { format: 'png' });
        fs.writeFileSync(file, Buffer.from(data, 'base64'));
    };
    const frameRect = `Array.from(document.getElementById('frames').children).filter(function (g) {
        return g.getElementsByTagName('title')[0].textContent.replace(/ \\([^()]*\\)$/, '') === ${JSON.stringify(frameName)};
    })[0].getElementsByTagName('rect')[0]`;
    const opacity = () => evaluate(`document.getElementById('reset').style.opacity`);

    const fills = () => evaluate(`JSON.stringify(Array.from(document.getElementById('frames').children).map(function (g) {
        return [g.getElementsByTagName('title')[0].textContent.replace(/ \\([^()]*\\)$/, ''),
                g.getElementsByTagName('rect')[0].getAttribute('fill')]; }))`);
    const loadFills = JSON.parse(await fills());
    console.log('load: ' + await geometry());
    await click(frameRect);
    console.log('zoom ' + frameName + ': ' + await geometry());
    console.log('reset visible: ' + await opacity());
    await screenshot(shot + '-zoom.png');
    await click(`document.getElementById('reset')`);
    console.log('after reset: ' + await geometry());
    console.log('reset hidden: ' + await opacity());
    await click(`document.getElementById('search')`);
    console.log('search: ' + await evaluate(`document.getElementById('matched').textContent`));
    const after = JSON.parse(await fills());
    const hit = after.filter((f) => f[1] === 'rgb(230,0,230)');
    const kept = after.filter((f, i) => f[1] !== 'rgb(230,0,230)' && f[1] === loadFills[i][1]);
    console.log('highlighted: ' + JSON.stringify(hit.map((f) => f[0])));
    console.log('fills kept: ' + kept.length + ' of ' + (after.length - hit.length));
    await screenshot(shot + '.png');
    console.log('page errors: ' + (pageErrors.length ? pageErrors.join(' | ').replace(/\n/g, ' ') : 'none'));
    clearTimeout(watchdog);
    // Closed as a browser closes (it reaps its helpers), at most 5 s; then
    // finish() kills what is left.
    closing = true;
    const gone = new Promise((resolve) => browser.once('exit', resolve));
    send('Browser.close').catch(() => {});
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5000))]);
    finish(0);
}
main().catch((e) => finish(1, String(e && e.stack || e)));
