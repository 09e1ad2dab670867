'use strict';
// The Node package against a built bundle ($SAGUARO_TEST_BUNDLE; test/e2e/test_node.py makes one of the default
// model, installs the package from the checkout and runs these with `node --test`): the response object and
// streaming, the event loop running during a generation, bad input (a missing bundle, a directory that is no
// bundle, a library that does not build, invalid messages JSON, bad options, a throwing callback, a destroyed
// model used again) as rejections or throws in Node's idiom, the concurrency contract (one call at a time per
// model, in call order; models in parallel) and stop() of a pending call.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { after, before, test } = require('node:test');

const saguaro = require('saguaro');

const BUNDLE = process.env.SAGUARO_TEST_BUNDLE;
const MESSAGES = [{ role: 'user', content: 'What is 17 + 25?' }];
const GREEDY = { max_tokens: 12, temperature: 0 };

let model;
let expected;

before(async () => {
  assert.ok(BUNDLE, 'SAGUARO_TEST_BUNDLE names a bundle directory');
  model = saguaro.init(BUNDLE);
  expected = (await saguaro.complete(model, MESSAGES, GREEDY)).response;
});

after(() => saguaro.destroy(model));

function temporaryDirectory() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'saguaro-node-'));
}

test('the installed package is the one used', () => {
  assert.match(require.resolve('saguaro'), /node_modules/);
});

test('the response object, and the streamed pieces are the answer', async () => {
  const pieces = [];
  const r = await saguaro.complete(model, MESSAGES, GREEDY, (text, tokenId) => pieces.push([text, tokenId]));
  assert.equal(r.success, true);
  assert.equal(r.error, null);
  assert.equal(r.cloud_handoff, false);
  assert.ok(r.response);
  assert.equal(r.response, expected);
  assert.equal(pieces.map(([text]) => text).join(''), r.response);
  assert.ok(pieces.every(([, tokenId]) => Number.isInteger(tokenId)));
  assert.ok(r.confidence > 0 && r.confidence <= 1);
  assert.ok(r.decode_tokens > 0);
});

test('JSON text arguments', async () => {
  const r = await saguaro.complete(model, '[{"role": "user", "content": "What is 17 + 25?"}]',
                                   '{"max_tokens": 12, "temperature": 0}');
  assert.equal(r.response, expected);
});

test('the event loop runs while the model generates', async () => {
  // A 1 ms timer stamps the loop's turns from the call to its end. Were the generation on the JS thread, the
  // longest gap between stamps would be at least the generation's own time; off it, the gaps are the timer's and
  // the scheduler's. A long prompt (about 210 tokens of the 256 the default model holds) makes that time long.
  const long = [{ role: 'user', content: 'What is 17 + 25? '.repeat(12) }];
  const stamps = [performance.now()];
  const timer = setInterval(() => stamps.push(performance.now()), 1);
  let r;
  try {
    r = await saguaro.complete(model, long, GREEDY);
  } finally {
    stamps.push(performance.now());
    clearInterval(timer);
  }
  const gap = Math.max(...stamps.slice(1).map((t, k) => t - stamps[k]));
  assert.ok(r.prefill_tokens > 200, `prefill of ${r.prefill_tokens} tokens`);
  assert.ok(gap < r.total_time_ms / 2, `the loop stood still ${gap.toFixed(1)} ms of ${r.total_time_ms.toFixed(1)}`);
});

test('a destroyed model used again rejects; a second destroy does nothing', async () => {
  const m = saguaro.init(BUNDLE);
  await saguaro.destroy(m);
  await saguaro.destroy(m);
  assert.equal(m.destroyed, true);
  await assert.rejects(saguaro.complete(m, MESSAGES, GREEDY), (e) => {
    assert.ok(e instanceof saguaro.SaguaroError);
    assert.equal(e.message, `${BUNDLE}: the model was destroyed; open it again with saguaro.init`);
    return true;
  });
});

test('a missing bundle throws, naming it', () => {
  const missing = path.join(BUNDLE, 'no-such-bundle');
  assert.throws(() => saguaro.init(missing), (e) => {
    assert.ok(e instanceof saguaro.SaguaroError);
    assert.ok(e.message.startsWith(`${missing}: no such bundle directory`), e.message);
    return true;
  });
  assert.throws(() => saguaro.init(42), TypeError);
});

test('a directory that is no bundle throws', () => {
  const d = temporaryDirectory();
  try {
    assert.throws(() => saguaro.init(d),
                  { name: 'SaguaroError', message: `${d}: not a bundle directory (no CMakeLists.txt)` });
  } finally {
    fs.rmSync(d, { recursive: true });
  }
});

test('a library that does not build throws, naming the build log', () => {
  // A bundle without libsaguaro.so is built on init; when CMake fails the error names the log.
  const d = temporaryDirectory();
  try {
    fs.writeFileSync(path.join(d, 'CMakeLists.txt'),
                     'cmake_minimum_required(VERSION 3.16)\nmessage(FATAL_ERROR "no model here")\n');
    assert.throws(() => saguaro.init(d), (e) => e instanceof saguaro.SaguaroError &&
                                                e.message.includes(path.join(d, 'build.log')));
    assert.match(fs.readFileSync(path.join(d, 'build.log'), 'utf8'), /no model here/);
  } finally {
    fs.rmSync(d, { recursive: true });
  }
});

test("a bundle without weights throws the C API's error", () => {
  const empty = path.join(BUNDLE, 'empty');
  fs.mkdirSync(empty, { recursive: true });
  fs.symlinkSync(path.join(BUNDLE, 'build'), path.join(empty, 'build'));
  try {
    assert.throws(() => saguaro.init(empty),
                  (e) => e instanceof saguaro.SaguaroError && e.message.includes('weights.sgw'));
  } finally {
    fs.rmSync(empty, { recursive: true });
  }
});

test('invalid messages reject with the C API error and its error response', async () => {
  await assert.rejects(saguaro.complete(model, '[{not json', GREEDY), (e) => {
    assert.ok(e instanceof saguaro.SaguaroError);
    assert.equal(e.message, 'messages_json: messages: not valid JSON');
    assert.equal(e.response.success, false);
    assert.equal(e.response.error, e.message);
    return true;
  });
  await assert.rejects(saguaro.complete(model, [{ content: 'no role' }], GREEDY),
                       { name: 'SaguaroError', message: /string "role"/ });
  await assert.rejects(saguaro.complete(model, [{ role: 'user', content: 17n }], GREEDY),
                       { name: 'TypeError', message: /^messages: cannot be written as JSON/ });
  await assert.rejects(saguaro.complete({}, MESSAGES, GREEDY), TypeError);
  assert.equal((await saguaro.complete(model, MESSAGES, GREEDY)).response, expected);
});

test('bad options reject', async () => {
  await assert.rejects(saguaro.complete(model, MESSAGES, { colour: 'blue' }),
                       { name: 'SaguaroError', message: /unknown option "colour"/ });
  await assert.rejects(saguaro.complete(model, MESSAGES, { cloud_base_url: 'http://127.0.0.1:9' }),
                       { name: 'SaguaroError', message: /--handoff/ });
  await assert.rejects(saguaro.complete(model, MESSAGES, GREEDY, 'not a function'), TypeError);
});

test('a throwing callback rejects with its error, is not called again, and the model stays usable', async () => {
  const refused = new Error('the app refused a piece');
  let calls = 0;
  await assert.rejects(saguaro.complete(model, MESSAGES, GREEDY, () => {
    calls++;
    throw refused;
  }), (e) => e === refused);
  assert.equal(calls, 1);
  // A thrown non-Error value comes back as it was thrown.
  await assert.rejects(saguaro.complete(model, MESSAGES, GREEDY, () => { throw 'a string'; }), (e) => e === 'a string');
  assert.equal((await saguaro.complete(model, MESSAGES, GREEDY)).response, expected);
});

test('concurrent calls on one model run one at a time, in call order', async () => {
  // Four calls at once: every answer is the sequential one, the pieces of one call are never interleaved with
  // another's, and the calls end in the order they were made.
  const log = [];
  const ended = [];
  const answers = await Promise.all([0, 1, 2, 3].map(async (n) => {
    const r = await saguaro.complete(model, MESSAGES, GREEDY, () => log.push(n));
    ended.push(n);
    return r.response;
  }));
  assert.deepEqual(answers, [expected, expected, expected, expected]);
  const runs = log.filter((n, k) => k === 0 || log[k - 1] !== n);
  assert.deepEqual(runs, [0, 1, 2, 3], `interleaved pieces: ${log}`);
  assert.deepEqual(ended, [0, 1, 2, 3]);
});

test("a callback may call its own model: the call queues behind the running one", async () => {
  let inner = null;
  const r = await saguaro.complete(model, MESSAGES, GREEDY, () => {
    inner ??= saguaro.complete(model, MESSAGES, GREEDY);
  });
  assert.equal(r.response, expected);
  assert.equal((await inner).response, expected);
});

test('destroy waits for the calls made before it; calls after it reject', async () => {
  const m = saguaro.init(BUNDLE);
  const running = saguaro.complete(m, MESSAGES, GREEDY);
  const released = saguaro.destroy(m);
  await assert.rejects(saguaro.complete(m, MESSAGES, GREEDY), /the model was destroyed/);
  assert.equal((await running).response, expected);
  await released;
});

test('stop ends the pending call with stopped: true and the text so far; the calls behind it run in full',
     async () => {
  const m = saguaro.init(BUNDLE);
  try {
    const long = { max_tokens: 64, temperature: 0 };
    const whole = await saguaro.complete(m, MESSAGES, long);
    assert.equal(whole.stopped, undefined);
    saguaro.stop(m); // nothing pending: nothing to stop
    const stopped = saguaro.complete(m, MESSAGES, long);
    const behind = saguaro.complete(m, MESSAGES, long);
    m.stop(); // the first call has not reached the worker yet: it is stopped at its first token
    const r = await stopped;
    assert.equal(r.stopped, true);
    assert.ok(r.decode_tokens < whole.decode_tokens, `${r.decode_tokens} of ${whole.decode_tokens} tokens`);
    assert.ok(whole.response.startsWith(r.response));
    const next = await behind;
    assert.equal(next.stopped, undefined);
    assert.equal(next.response, whole.response);
    // While a call runs, from its token callback as an app's stop button would: the pieces reach JS after the
    // worker made them, so the generation may have ended first; either way the answer is consistent.
    let asked = false;
    const running = await saguaro.complete(m, MESSAGES, long, () => {
      if (!asked) m.stop();
      asked = true;
    });
    if (running.stopped) assert.ok(whole.response.startsWith(running.response));
    else assert.equal(running.response, whole.response);
  } finally {
    await saguaro.destroy(m);
  }
});

test('two models of one bundle answer at the same time', async () => {
  // The calls overlap: together they take less wall time than the sum of their own times (one after the other
  // they would take more).
  const models = [saguaro.init(BUNDLE), saguaro.init(BUNDLE)];
  try {
    const start = performance.now();
    const answers = await Promise.all(models.map((m) => saguaro.complete(m, MESSAGES, GREEDY)));
    const wall = performance.now() - start;
    assert.deepEqual(answers.map((r) => r.response), [expected, expected]);
    const own = answers[0].total_time_ms + answers[1].total_time_ms;
    assert.ok(wall < own, `${wall.toFixed(1)} ms for both, ${own.toFixed(1)} ms of their own times`);
  } finally {
    await Promise.all(models.map((m) => saguaro.destroy(m)));
  }
});
