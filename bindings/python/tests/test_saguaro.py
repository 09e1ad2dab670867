"""The Python package against a built bundle ($SAGUARO_TEST_BUNDLE; test/e2e/test_python.py makes one of the
default model and runs these in a fresh virtual environment): the response dict and streaming, the context manager,
bad input (a missing bundle, a directory that is no bundle, a library that does not build or lacks the C API,
invalid messages JSON, bad options, a raising callback, a callback calling back in, a destroyed model used again)
as SaguaroError or the callback's own exception, the thread-safety contract (one call at a time per model, models in parallel) and stop()
from another thread."""
import ctypes
import os
import tempfile
import threading
import unittest

import saguaro

BUNDLE = os.environ["SAGUARO_TEST_BUNDLE"]
MESSAGES = [{"role": "user", "content": "What is 17 + 25?"}]
GREEDY = {"max_tokens": 12, "temperature": 0}


def _libm_path():
    """The file of the C maths library this process has mapped (ctypes loads it by its soname)."""
    ctypes.CDLL("libm.so.6")
    with open("/proc/self/maps") as maps:
        return next(line.split()[-1] for line in maps if "/libm.so" in line)


class SaguaroTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = saguaro.init(BUNDLE)
        cls.expected = saguaro.complete(cls.model, MESSAGES, GREEDY)["response"]

    @classmethod
    def tearDownClass(cls):
        saguaro.destroy(cls.model)

    def test_installed_package_is_used(self):
        self.assertIn("site-packages", saguaro.__file__)

    def test_response_and_streamed_pieces(self):
        pieces = []
        r = saguaro.complete(self.model, MESSAGES, GREEDY, on_token=lambda text, i: pieces.append((text, i)))
        self.assertTrue(r["success"])
        self.assertIsNone(r["error"])
        self.assertFalse(r["cloud_handoff"])
        self.assertEqual(r["response"], self.expected)
        self.assertTrue(r["response"])
        self.assertEqual("".join(t for t, _ in pieces), r["response"])
        self.assertTrue(0 < r["confidence"] <= 1)
        self.assertGreater(r["decode_tokens"], 0)

    def test_json_text_arguments(self):
        r = saguaro.complete(self.model, '[{"role": "user", "content": "What is 17 + 25?"}]',
                             '{"max_tokens": 12, "temperature": 0}')
        self.assertEqual(r["response"], self.expected)

    def test_context_manager_destroys(self):
        with saguaro.init(BUNDLE) as m:
            self.assertEqual(m.complete(MESSAGES, GREEDY)["response"], self.expected)
        self.assertTrue(m.destroyed)
        with self.assertRaisesRegex(saguaro.SaguaroError, "destroyed"):
            m.complete(MESSAGES, GREEDY)

    def test_destroyed_model_used_again(self):
        m = saguaro.init(BUNDLE)
        saguaro.destroy(m)
        saguaro.destroy(m)  # a second destroy does nothing
        with self.assertRaises(saguaro.SaguaroError) as caught:
            saguaro.complete(m, MESSAGES, GREEDY)
        self.assertIn("the model was destroyed", caught.exception.message)

    def test_missing_bundle(self):
        missing = os.path.join(BUNDLE, "no-such-bundle")
        with self.assertRaises(saguaro.SaguaroError) as caught:
            saguaro.init(missing)
        self.assertIn(missing, caught.exception.message)
        self.assertIn("no such bundle directory", caught.exception.message)

    def test_directory_that_is_no_bundle(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(saguaro.SaguaroError, "not a bundle directory"):
                saguaro.init(d)

    def test_library_build_fails(self):
        # A bundle without libsaguaro.so is built on init; when CMake fails the error names the log.
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
                f.write('cmake_minimum_required(VERSION 3.16)\nmessage(FATAL_ERROR "no model here")\n')
            with self.assertRaises(saguaro.SaguaroError) as caught:
                saguaro.init(d)
            self.assertIn(os.path.join(d, "build.log"), caught.exception.message)
            self.assertIn("no model here", open(os.path.join(d, "build.log")).read())

    def test_library_without_the_c_api(self):
        # A library lacking a C API function (here the C maths library, standing in for one of an older saguaro)
        # is a SaguaroError naming the function, not an AttributeError.
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "build"))
            os.symlink(_libm_path(), os.path.join(d, "build", "libsaguaro.so"))
            with self.assertRaises(saguaro.SaguaroError) as caught:
                saguaro.init(d)
            self.assertIn("saguaro_init", caught.exception.message)
            self.assertIn("compile the bundle again", caught.exception.message)

    def test_bundle_without_weights(self):
        # The C API's own error (saguaro_init's saguaro_last_error) names the weights file.
        os.makedirs(os.path.join(BUNDLE, "empty"), exist_ok=True)
        os.symlink(os.path.join(BUNDLE, "build"), os.path.join(BUNDLE, "empty", "build"))
        try:
            with self.assertRaises(saguaro.SaguaroError) as caught:
                saguaro.init(os.path.join(BUNDLE, "empty"))
            self.assertIn("weights.sgw", caught.exception.message)
        finally:
            os.remove(os.path.join(BUNDLE, "empty", "build"))

    def test_invalid_messages_json(self):
        with self.assertRaises(saguaro.SaguaroError) as caught:
            saguaro.complete(self.model, "[{not json", GREEDY)
        self.assertEqual(caught.exception.message, "messages_json: messages: not valid JSON")
        self.assertEqual(caught.exception.response["success"], False)
        self.assertEqual(caught.exception.response["error"], caught.exception.message)
        with self.assertRaisesRegex(saguaro.SaguaroError, 'string "role"'):
            saguaro.complete(self.model, [{"content": "no role"}], GREEDY)
        with self.assertRaisesRegex(TypeError, "messages"):
            saguaro.complete(self.model, [{"role": "user", "content": object()}], GREEDY)

    def test_bad_options(self):
        with self.assertRaisesRegex(saguaro.SaguaroError, 'unknown option "colour"'):
            saguaro.complete(self.model, MESSAGES, {"colour": "blue"})
        with self.assertRaisesRegex(saguaro.SaguaroError, "--handoff"):
            saguaro.complete(self.model, MESSAGES, {"cloud_base_url": "http://127.0.0.1:9"})

    def test_raising_callback(self):
        calls = []

        def on_token(text, token_id):
            calls.append(text)
            raise ValueError("the app refused a piece")

        with self.assertRaisesRegex(ValueError, "the app refused a piece"):
            saguaro.complete(self.model, MESSAGES, GREEDY, on_token=on_token)
        self.assertEqual(len(calls), 1)  # not called again after it raised
        self.assertEqual(saguaro.complete(self.model, MESSAGES, GREEDY)["response"], self.expected)

    def test_callback_calling_back_in(self):
        def on_token(text, token_id):
            self.model.complete(MESSAGES, GREEDY)

        with self.assertRaisesRegex(saguaro.SaguaroError, "inside this model's on_token callback"):
            saguaro.complete(self.model, MESSAGES, GREEDY, on_token=on_token)

    def test_one_call_at_a_time_per_model(self):
        # Four threads on one model: every answer is the sequential one, and the pieces of one call are never
        # interleaved with another's (the model's lock serialises the calls).
        log, answers = [], []

        def work(n):
            r = self.model.complete(MESSAGES, GREEDY, on_token=lambda text, i: log.append(n))
            answers.append(r["response"])

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(answers, [self.expected] * 4)
        runs = [n for k, n in enumerate(log) if k == 0 or log[k - 1] != n]
        self.assertEqual(sorted(runs), [0, 1, 2, 3], f"interleaved pieces: {log}")

    def test_models_in_parallel(self):
        # Two models of the same bundle in two threads at once give the sequential answer.
        models = [saguaro.init(BUNDLE) for _ in range(2)]
        answers = [None, None]

        def work(k):
            answers[k] = models[k].complete(MESSAGES, GREEDY)["response"]

        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for m in models:
            m.destroy()
        self.assertEqual(answers, [self.expected] * 2)

    def test_destroy_waits_for_a_running_call(self):
        m = saguaro.init(BUNDLE)
        started, result = threading.Event(), []

        def on_token(text, token_id):
            started.set()

        worker = threading.Thread(target=lambda: result.append(m.complete(MESSAGES, GREEDY, on_token=on_token)))
        worker.start()
        started.wait(60)
        m.destroy()  # blocks until the call in the worker returned
        worker.join()
        self.assertEqual(result[0]["response"], self.expected)
        with self.assertRaisesRegex(saguaro.SaguaroError, "destroyed"):
            m.complete(MESSAGES, GREEDY)

    def test_stop_from_another_thread(self):
        # The callback holds the generation at its first piece until the main thread has called stop(): the call
        # then ends after that token with "stopped": True and the text so far, a prefix of the whole answer.
        m = saguaro.init(BUNDLE)
        long = {"max_tokens": 64, "temperature": 0}
        whole = m.complete(MESSAGES, long)
        first, stopped, result = threading.Event(), threading.Event(), []

        def on_token(text, token_id):
            first.set()
            stopped.wait(60)

        worker = threading.Thread(target=lambda: result.append(m.complete(MESSAGES, long, on_token=on_token)))
        worker.start()
        self.assertTrue(first.wait(60))
        m.stop()  # does not wait for the model's lock, which the running call holds
        stopped.set()
        worker.join()
        r = result[0]
        self.assertIs(r["stopped"], True)
        self.assertLess(r["decode_tokens"], whole["decode_tokens"])
        self.assertTrue(whole["response"].startswith(r["response"]))
        self.assertNotIn("stopped", whole)
        # A stop asked while nothing runs is dropped: the next call answers in full.
        saguaro.stop(m)
        self.assertEqual(m.complete(MESSAGES, long)["response"], whole["response"])
        m.destroy()
        m.stop()  # on a destroyed model: nothing


if __name__ == "__main__":
    unittest.main()
