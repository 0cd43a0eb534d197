# Runs model.py three times into the same trace, debug and cache folders, editing it between runs.
set -e
cp model.py model_1.py.txt
python3 model.py 1
python3 - <<'PY'
import re
src = open("model.py").read()
src = src.replace("# @@HELPER@@", "\n\ndef scaled(h, s=0.5):\n    return h * s\n")
src = src.replace("h = F.gelu(h)  # @@ACT@@", "h = torch.tanh(h)  # @@ACT@@")
src = src.replace("return x + h  # @@RESIDUAL@@", "return x + scaled(h)  # @@RESIDUAL@@")
open("model.py", "w").write(src)
PY
cp model.py model_2.py.txt
python3 model.py 2
python3 - <<'PY'
src = open("model.py").read()
src = src.replace("        # @@BREAK@@", "        if h.shape[0] > 80:\n            print(\"wide\", h.mean(dim=0)[:2].tolist())")
open("model.py", "w").write(src)
PY
cp model.py model_3.py.txt
python3 model.py 3
