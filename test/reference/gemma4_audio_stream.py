"""Frame-by-frame streaming form of the Gemma 4 audio tower of gemma4_audio_reference.py: valid mel frames go in one
at a time, each soft token comes out as soon as no later frame can change it, and the only state is the rings that
docs/gemma4-audio.md ("Streaming") lists. check_gemma4_audio_reference.py checks that the tokens equal the whole-clip
encode and that each comes out after the mel frame the doc names.

    stream = AudioStream(model)              # a model directory or a loaded AudioModel
    for frame in features: tokens = stream.push(frame)   # [k, text hidden], k = 0 or 1
    tokens = stream.finish()                 # what the end of the audio settles (at most one token)
"""
import math

import numpy as np

import gemma4_audio_reference as ref


class _Stride2Rows:
    """One subsampling stage over time: output row r reads input rows 2r - 1, 2r, 2r + 1 (zero before the start
    and after the end). Holds row 2r - 1 and, between pushes, row 2r."""

    def __init__(self, make_row):
        """make_row(three input rows) -> one output row."""
        self.make_row, self.before, self.centre = make_row, None, None

    def push(self, row):
        """Takes the next input row; returns the output row it completes, or None."""
        if self.centre is None:
            self.centre = row
            return None
        before = np.zeros_like(row) if self.before is None else self.before
        out = self.make_row(before, self.centre, row)
        self.before, self.centre = row, None
        return out

    def finish(self):
        """The last output row, read with a zero row after the end; None when no input row is waiting."""
        if self.centre is None:
            return None
        before = np.zeros_like(self.centre) if self.before is None else self.before
        out, self.centre = self.make_row(before, self.centre, np.zeros_like(self.centre)), None
        return out


class AudioStream:
    """The tower with state carried between frames: two stride-2 stages, then per conformer layer a ring of the last
    P - 1 scaled keys and values and a ring of the last K - 1 light-conv inputs."""

    def __init__(self, model):
        """Refuses attention_context_right > 1: a frame would then wait for future encoder frames."""
        self.model = model if isinstance(model, ref.AudioModel) else ref.AudioModel(model)
        cfg = self.model.cfg
        if cfg.max_future > 1:
            raise ValueError(f"{cfg.where}: streaming takes attention_context_right 0 or 1, not {cfg.max_future}")
        sub = ref.TOWER + "subsample_conv_projection."
        self.stages = [_Stride2Rows(self._conv_row(sub + "layer0.")), _Stride2Rows(self._conv_row(sub + "layer1."))]
        self.keys = [[] for _ in range(cfg.layers)]
        self.values = [[] for _ in range(cfg.layers)]
        self.conv_inputs = [[np.zeros(cfg.hidden)] * (cfg.kernel - 1) for _ in range(cfg.layers)]
        self.rel = [ref.relative_keys(self.model, f"{ref.TOWER}layers.{i}.self_attn.") for i in range(cfg.layers)]

    def _conv_row(self, prefix):
        """One output row of a subsampling layer from its three input time rows [mel, channels]: the 3x3 stride-2
        conv (the reference's, on the rows stacked after a dummy so that its output row 1 reads exactly these
        three), channel LayerNorm, ReLU."""
        w, eps = self.model.w, self.model.cfg.eps

        def make_row(before, centre, after):
            rows = np.stack([np.zeros_like(centre), before, centre, after])
            y = ref.conv2d_stride2(rows, w[prefix + "conv.weight"])[1]
            centred = y - y.mean(axis=-1, keepdims=True)
            y = centred / np.sqrt(np.mean(centred ** 2, axis=-1, keepdims=True) + eps) * w[prefix + "norm.weight"]
            return np.maximum(y, 0.0)
        return make_row

    def push(self, frame):
        """Takes one valid mel frame [mel]; returns the soft tokens it makes final, [0 or 1, text hidden]."""
        row0 = self.stages[0].push(np.asarray(frame, dtype=np.float64)[:, None])
        row1 = None if row0 is None else self.stages[1].push(row0)
        return self._tokens([] if row1 is None else [row1])

    def finish(self):
        """Ends the audio: the rows still waiting for frames that will never come are read with zeros."""
        rows = []
        row0 = self.stages[0].finish()
        if row0 is not None:
            row1 = self.stages[1].push(row0)
            rows += [] if row1 is None else [row1]
        row1 = self.stages[1].finish()
        return self._tokens(rows + ([] if row1 is None else [row1]))

    def _tokens(self, rows):
        """Soft tokens of finished subsampled rows, through every layer in turn."""
        model, out = self.model, []
        for row in rows:
            x = row.reshape(1, -1) @ model.w[ref.TOWER + "subsample_conv_projection.input_proj_linear.weight"].T
            for i in range(model.cfg.layers):
                x = self._layer(i, x)
            x = x @ model.w[ref.TOWER + "output_proj.weight"].T + model.w[ref.TOWER + "output_proj.bias"]
            out.append(ref.rms_norm(x, None, model.cfg.eps) @ model.w[ref.EMBEDDER].T)
        return np.concatenate(out) if out else np.zeros((0, model.cfg.text_hidden))

    def _layer(self, i, x):
        """Gemma4AudioLayer on one frame [1, hidden], reading and updating layer i's rings."""
        model, p = self.model, f"{ref.TOWER}layers.{i}."
        w, g = model.w, model.grad_clip[p]
        x = ref.feed_forward(model, p + "feed_forward1.", x, None)
        a = self._attend(i, ref.rms_norm(np.clip(x, -g, g), w[p + "norm_pre_attn.weight"], ref.DEFAULT_NORM_EPS))
        x = x + ref.rms_norm(np.clip(a, -g, g), w[p + "norm_post_attn.weight"], ref.DEFAULT_NORM_EPS)
        x = self._light_conv(i, x)
        x = ref.feed_forward(model, p + "feed_forward2.", x, None)
        return ref.rms_norm(np.clip(x, -g, g), w[p + "norm_out.weight"], ref.DEFAULT_NORM_EPS)

    def _attend(self, i, x):
        """This frame's attention over itself and the ring of the P - 1 frames before it (distance d = ring
        length - index); the ring then drops its oldest entry."""
        model, cfg, p = self.model, self.model.cfg, f"{ref.TOWER}layers.{i}.self_attn."
        heads, dim = cfg.heads, cfg.head_dim
        q = ref.clipped_linear(model, p + "q_proj.", x, None).reshape(heads, dim)
        q = q * (dim ** -0.5 / math.log(2.0)) * ref.softplus(model.w[p + "per_dim_scale"])
        k = ref.clipped_linear(model, p + "k_proj.", x, None).reshape(heads, dim) * (math.log(1.0 + math.e) /
                                                                                     math.log(2.0))
        v = ref.clipped_linear(model, p + "v_proj.", x, None).reshape(heads, dim)
        keys, values = self.keys[i] + [k], self.values[i] + [v]
        logits = np.zeros((heads, len(keys)))
        for index, key in enumerate(keys):
            d = len(keys) - 1 - index
            position = cfg.half_context - cfg.max_past + d
            logits[:, index] = np.sum(q * key, axis=-1)
            if 0 <= position <= cfg.half_context:
                logits[:, index] += np.sum(q * self.rel[i][position], axis=-1)
        logits = cfg.cap * np.tanh(logits / cfg.cap)
        probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
        out = np.einsum("hk,khd->hd", probs, np.stack(values)).reshape(1, heads * dim)
        first_kept = max(0, len(keys) - (cfg.max_past - 1))
        self.keys[i], self.values[i] = keys[first_kept:], values[first_kept:]
        return ref.clipped_linear(model, p + "post.", out, None)

    def _light_conv(self, i, x):
        """Gemma4AudioLightConv1d on one frame, the depthwise conv reading the ring of the K - 1 inputs before it."""
        model, cfg, p = self.model, self.model.cfg, f"{ref.TOWER}layers.{i}.lconv1d."
        w, g = model.w, model.grad_clip[p]
        y = ref.clipped_linear(model, p + "linear_start.", ref.rms_norm(x, w[p + "pre_layer_norm.weight"], cfg.eps),
                               None)[0]
        y = y[:cfg.hidden] / (1.0 + np.exp(-y[cfg.hidden:]))
        window = self.conv_inputs[i] + [y]
        conv = sum(row * w[p + "depthwise_conv1d.weight"][:, 0, j] for j, row in enumerate(window))
        self.conv_inputs[i] = window[1:]
        conv = ref.rms_norm(np.clip(conv, -g, g), w[p + "conv_norm.weight"], cfg.eps).reshape(1, -1)
        return x + ref.clipped_linear(model, p + "linear_end.", ref.silu(conv), None)
