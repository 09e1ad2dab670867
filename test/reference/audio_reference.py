"""Independent numpy oracle of the audio front-end (numpy only; run with /usr/bin/python3).

Transcribes, in float64 numpy, the Python code the models' features come from:
  - Whisper: openai/whisper whisper/audio.py log_mel_spectrogram (torch.stft center=True reflect,
    periodic Hann, stft[..., :-1], |X|^2) with librosa.filters.mel(htk=False, norm="slaney").
  - Gemma 4: transformers Gemma4AudioFeatureExtractor (__call__ + _extract_spectrogram) with
    transformers.audio_utils.mel_filter_bank(norm=None, mel_scale="htk").
and measures resampled tones by FFT. Used by test/e2e/test_features_audio.py.

  audio_reference.py whisper WAV --n-mels 80 [--pad-30s] -o OUT.npy
  audio_reference.py gemma4 WAV -o OUT.npy [--mask MASK.npy]
  audio_reference.py tone-wav --rate 44100 --freq 1000 --seconds 1.5 [--format f32|s16|s24] -o T.wav
  audio_reference.py tone-level PCM.npy --rate 16000 --freq 1000     # prints level dB, alias dB
"""
import argparse
import struct
import sys
import wave

import numpy as np

N_SAMPLES_30S = 480000


# --- WAV I/O (the oracle's own, for 16-bit PCM and the test signals it writes) ----------------------

def read_wav_s16(path):
    """Mono float64 samples of a 16-bit PCM WAV, scaled as whisper.load_audio does (/32768)."""
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            raise SystemExit(f"{path}: the oracle reads 16-bit PCM only")
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64) / 32768.0
        return x.reshape(-1, w.getnchannels()).mean(axis=1), w.getframerate()


def write_wav(path, samples, rate, fmt="f32", channels=1):
    """Writes samples (frames x channels or mono) as PCM s16/s24 or IEEE float32 (format tag 3)."""
    x = np.asarray(samples, dtype=np.float64).reshape(len(samples), -1)
    x = np.repeat(x, channels, axis=1) if x.shape[1] == 1 else x
    if fmt == "f32":
        tag, bits, data = 3, 32, x.astype("<f4").tobytes()
    elif fmt == "s16":
        tag, bits, data = 1, 16, np.clip(np.round(x * 32768), -32768, 32767).astype("<i2").tobytes()
    elif fmt == "s24":
        v = np.clip(np.round(x * 8388608), -8388608, 8388607).astype("<i4")
        tag, bits, data = 1, 24, b"".join(int(s).to_bytes(4, "little", signed=True)[:3] for s in v.ravel())
    else:
        raise ValueError(fmt)
    ch = x.shape[1]
    fmt_chunk = struct.pack("<HHIIHH", tag, ch, rate, rate * ch * bits // 8, ch * bits // 8, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt_chunk + b"data" + struct.pack("<I", len(data)) + data
    if len(data) % 2:
        body += b"\0"
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)


# --- mel filter banks ---------------------------------------------------------------------------------

def hz_to_mel_slaney(f):
    f = np.asarray(f, dtype=np.float64)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    logstep = np.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_hz / f_sp + np.log(np.maximum(f, 1e-300) / min_log_hz) / logstep,
                    f / f_sp)


def mel_to_hz_slaney(m):
    m = np.asarray(m, dtype=np.float64)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)


def slaney_mel_filters(sr, n_fft, n_mels):
    """librosa.filters.mel(sr, n_fft, n_mels) with its defaults (fmin 0, fmax sr/2, htk=False,
    norm='slaney'), float32 like librosa's default dtype."""
    fftfreqs = np.linspace(0, sr / 2, 1 + n_fft // 2)
    mel_f = mel_to_hz_slaney(np.linspace(hz_to_mel_slaney(0.0), hz_to_mel_slaney(sr / 2.0), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fftfreqs[None, :]
    weights = np.zeros((n_mels, 1 + n_fft // 2), dtype=np.float32)
    for i in range(n_mels):
        lower = -ramps[i] / fdiff[i]
        upper = ramps[i + 2] / fdiff[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels]))[:, None]
    return weights


def htk_mel_filters(sr, n_fft, n_mels, fmin, fmax):
    """transformers.audio_utils.mel_filter_bank(num_frequency_bins=n_fft//2+1, ..., norm=None,
    mel_scale='htk'): [n_bins, n_mels], float64."""
    to_mel = lambda f: 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)
    to_hz = lambda m: 700.0 * (10.0 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)
    filter_freqs = to_hz(np.linspace(to_mel(fmin), to_mel(fmax), n_mels + 2))
    fft_freqs = np.linspace(0, sr // 2, n_fft // 2 + 1)
    filter_diff = np.diff(filter_freqs)
    slopes = filter_freqs[None, :] - fft_freqs[:, None]
    down = -slopes[:, :-2] / filter_diff[:-1]
    up = slopes[:, 2:] / filter_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


# --- the two conventions --------------------------------------------------------------------------------

def whisper_log_mel(audio, n_mels, pad_30s=False, filters=None):
    """whisper.audio.log_mel_spectrogram(audio, n_mels) [after pad_or_trim when pad_30s]."""
    n_fft, hop = 400, 160
    x = np.asarray(audio, dtype=np.float64)
    if pad_30s:
        x = np.pad(x, (0, max(0, N_SAMPLES_30S - len(x))))[:N_SAMPLES_30S]
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)  # torch.hann_window (periodic)
    padded = np.pad(x, n_fft // 2, mode="reflect")                       # torch.stft(center=True)
    n_frames = 1 + (len(padded) - n_fft) // hop
    idx = np.arange(n_fft)[None, :] + hop * np.arange(n_frames)[:, None]
    power = np.abs(np.fft.rfft(padded[idx] * window, axis=1)) ** 2      # [frames, 201]
    power = power[:-1]                                                   # stft[..., :-1]
    mel = (slaney_mel_filters(16000, n_fft, n_mels) if filters is None else filters).astype(np.float64) @ power.T
    log_spec = np.log10(np.maximum(mel, 1e-10))
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return ((log_spec + 4.0) / 4.0).astype(np.float32)


def gemma4_features(audio):
    """Gemma4AudioFeatureExtractor()(audio) with its defaults: (input_features[0] float32 [frames, 128],
    input_features_mask[0] bool [frames])."""
    frame_length, hop, fft_length, n_mels, mel_floor = 320, 160, 512, 128, 1e-3
    # SequenceFeatureExtractor.pad casts float64 input to float32; frames * window stays float32 and
    # np.fft.rfft computes in float64 from there.
    x = np.asarray(audio, dtype=np.float32)[:N_SAMPLES_30S]               # truncation to max_length
    n_real = len(x)
    x = np.pad(x, (0, -len(x) % 128)).astype(np.float32)                 # pad_to_multiple_of=128
    mask = np.zeros(len(x), dtype=bool)
    mask[:n_real] = True
    pad_left = frame_length // 2                                         # semicausal
    x = np.pad(x, (pad_left, 0))
    mask = np.pad(mask, (pad_left, 0))
    span = frame_length + 1
    n_frames = max(0, (len(x) - span) // hop + 1)
    idx = np.arange(span)[None, :] + hop * np.arange(n_frames)[:, None]
    frames = x[idx][:, :-1]                                              # preemphasis 0: drop the last
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame_length) / frame_length)).astype(np.float32)
    magnitude = np.abs(np.fft.rfft(frames * window, n=fft_length, axis=1))
    mel = magnitude @ htk_mel_filters(16000, fft_length, n_mels, 0.0, 8000.0)
    log_mel = np.log(mel + mel_floor).astype(np.float32)
    valid = mask[np.arange(n_frames) * hop + span - 1]                   # the window's last sample
    return log_mel * valid[:, None], valid


# --- resampler measurement ------------------------------------------------------------------------------

def tone_levels(y, rate, freq):
    """(level at `freq`, level of everything in y) in dB re a unit sine, over 1 s taken from the middle
    of y: with 1 Hz bins and integer frequencies the tone sits on a bin (no leakage), so a plain FFT gives
    exact amplitudes. A frequency above rate / 2 is read where it would alias to."""
    freq = abs(freq - rate * round(freq / rate))
    y = np.asarray(y, dtype=np.float64).ravel()
    start = (len(y) - rate) // 2
    seg = y[start:start + rate]
    spectrum = np.abs(np.fft.rfft(seg)) * 2.0 / rate
    total = np.sqrt(2.0 * np.mean(seg ** 2))
    with np.errstate(divide="ignore"):
        return 20 * np.log10(spectrum[int(round(freq))]), 20 * np.log10(total)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("whisper")
    w.add_argument("wav")
    w.add_argument("--n-mels", type=int, default=80)
    w.add_argument("--pad-30s", action="store_true")
    w.add_argument("-o", required=True)
    g = sub.add_parser("gemma4")
    g.add_argument("wav")
    g.add_argument("-o", required=True)
    g.add_argument("--mask")
    t = sub.add_parser("tone-wav")
    t.add_argument("--rate", type=int, required=True)
    t.add_argument("--freq", type=float, required=True)
    t.add_argument("--seconds", type=float, default=1.5)
    t.add_argument("--format", default="f32")
    t.add_argument("-o", required=True)
    lv = sub.add_parser("tone-level")
    lv.add_argument("pcm")
    lv.add_argument("--rate", type=int, default=16000)
    lv.add_argument("--freq", type=float, required=True)
    a = ap.parse_args()
    if a.cmd == "whisper":
        np.save(a.o, whisper_log_mel(read_wav_s16(a.wav)[0], a.n_mels, a.pad_30s))
    elif a.cmd == "gemma4":
        features, mask = gemma4_features(read_wav_s16(a.wav)[0])
        np.save(a.o, features)
        if a.mask:
            np.save(a.mask, mask)
    elif a.cmd == "tone-wav":
        n = int(a.seconds * a.rate)
        write_wav(a.o, np.sin(2 * np.pi * a.freq * np.arange(n) / a.rate), a.rate, a.format)
    elif a.cmd == "tone-level":
        print("%.6f %.6f" % tone_levels(np.load(a.pcm), a.rate, a.freq))
    return 0


if __name__ == "__main__":
    sys.exit(main())
