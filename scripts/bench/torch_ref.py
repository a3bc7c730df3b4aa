"""PyTorch reference for `npm run bench` (benchmark only; the product never uses Python).

A BERT token-classification model written with the same ops as Hugging Face's BertModel
(Linear, exact GELU, LayerNorm, softmax attention with an additive mask, dropout 0.1),
trained with torch.optim.AdamW + clip_grad_norm_ like the engine's step. It reads commands
from stdin ("train N", "infer N", "infer8 N", "rss", "quit") and answers one JSON line per
command. "infer8" runs torch's dynamic int8 quantization of every nn.Linear (oneDNN engine).
"""
import copy
import json
import math
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Layer(nn.Module):
    def __init__(self, c, h, i):
        super().__init__()
        self.h = h
        self.q, self.k, self.v, self.o = (nn.Linear(c, c) for _ in range(4))
        self.ln1 = nn.LayerNorm(c, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(c, i), nn.Linear(i, c)
        self.ln2 = nn.LayerNorm(c, eps=1e-12)
        self.drop = nn.Dropout(0.1)

    def forward(self, x, bias):
        b, t, c = x.shape
        d = c // self.h
        split = lambda y: y.view(b, t, self.h, d).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d) + bias
        p = self.drop(F.softmax(scores, dim=-1))
        ctx = (p @ v).transpose(1, 2).reshape(b, t, c)
        a = self.ln1(x + self.drop(self.o(ctx)))
        return self.ln2(a + self.drop(self.ff2(F.gelu(self.ff1(a)))))


class Bert(nn.Module):
    def __init__(self, cfg, labels):
        super().__init__()
        c = cfg["hidden"]
        self.word = nn.Embedding(cfg["vocab"], c)
        self.pos = nn.Embedding(512, c)
        self.typ = nn.Embedding(2, c)
        self.ln = nn.LayerNorm(c, eps=1e-12)
        self.drop = nn.Dropout(0.1)
        self.layers = nn.ModuleList(Layer(c, cfg["heads"], cfg["inter"]) for _ in range(cfg["layers"]))
        self.cls = nn.Linear(c, labels)

    def forward(self, ids, mask, types):
        t = ids.shape[1]
        x = self.word(ids) + self.pos(torch.arange(t)) + self.typ(types)
        x = self.drop(self.ln(x))
        bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, bias)
        return self.cls(self.drop(x))


def main():
    cfg = json.loads(sys.argv[1])
    torch.set_num_threads(cfg["threads"])
    torch.manual_seed(0)
    labels = 3
    model = Bert(cfg, labels)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    b, t = cfg["batch"], cfg["seq"]
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, cfg["vocab"], (b, t), generator=g)
    mask = torch.ones(b, t, dtype=torch.long)
    types = torch.zeros(b, t, dtype=torch.long)
    y = torch.randint(0, labels, (b, t), generator=g)

    def train_step():
        model.train()
        opt.zero_grad(set_to_none=True)
        logits = model(ids, mask, types)
        loss = F.cross_entropy(logits.view(-1, labels), y.view(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    def infer_step():
        model.eval()
        with torch.inference_mode():
            model(ids, mask, types)

    quantized = []

    def infer8_step():
        if not quantized:
            engines = torch.backends.quantized.supported_engines
            torch.backends.quantized.engine = "onednn" if "onednn" in engines else engines[0]
            quantized.append(torch.quantization.quantize_dynamic(copy.deepcopy(model).eval(), {nn.Linear}, dtype=torch.qint8))
        with torch.inference_mode():
            quantized[0](ids, mask, types)

    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "quit":
            break
        if cmd[0] == "rss":
            print(json.dumps({"peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}), flush=True)
            continue
        fn = {"train": train_step, "infer": infer_step, "infer8": infer8_step}[cmd[0]]
        times = []
        for _ in range(int(cmd[1])):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        print(json.dumps({"times": times}), flush=True)


if __name__ == "__main__":
    main()
