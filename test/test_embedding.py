"""Both embedding backends give the same unit vectors; the ONNX export is cached."""
import os
import subprocess
import sys
import textwrap

import numpy as np

TEXTS = ["put the blocks in the green bowl please", "thanks, but next time use both hands",
         "a", "can you bring me the mango juice and a cup from the kitchen counter?" * 8,
         "Ünïcödé café — a text past the 256-token cut " * 30]

COMPARE = textwrap.dedent("""
    import json, os, sys
    from llm_interaction_node.core.memory import embedding
    texts = json.loads(sys.argv[1])
    vectors = embedding.embed(texts)
    print(json.dumps({"backend": embedding.backend(), "vectors": vectors.tolist(),
                      "cache": str(embedding.onnx_cache_path()),
                      "exists": embedding.onnx_cache_path().exists(),
                      "torch_imported": "torch" in sys.modules}))
""")


def embed_in_process(backend, cache_home):
    import json
    env = dict(os.environ, LLM_INTERACTION_EMBED_BACKEND=backend, XDG_CACHE_HOME=str(cache_home))
    r = subprocess.run([sys.executable, "-c", COMPARE, json.dumps(TEXTS)], capture_output=True,
                       text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_onnx_and_torch_backends_agree_and_the_export_is_cached(tmp_path):
    onnx = embed_in_process("onnx", tmp_path)
    torch = embed_in_process("torch", tmp_path)
    assert (onnx["backend"], torch["backend"]) == ("onnx", "torch")
    assert onnx["exists"] and onnx["cache"].startswith(str(tmp_path))
    a, b = np.array(onnx["vectors"]), np.array(torch["vectors"])
    assert a.shape == b.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(a * b, axis=1)) > 0.9999
    # a second process reuses the exported file
    mtime = os.path.getmtime(onnx["cache"])
    again = embed_in_process("onnx", tmp_path)
    assert again["exists"] and os.path.getmtime(onnx["cache"]) == mtime
    # and tokenizes with `tokenizers` alone: torch only for the export (issue 45: 1.3 s and
    # ~250 MB less in every node and command that embeds)
    assert onnx["torch_imported"] and not again["torch_imported"]
    assert np.array_equal(np.array(again["vectors"]), a)
