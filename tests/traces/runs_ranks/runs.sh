# Runs the two-rank job twice into the same trace folder, editing model.py between the runs.
set -e
cp model.py model_1.py.txt
python3 model.py 1
sleep 2
python3 - <<'PY'
src = open("model.py").read()
src = src.replace("h = torch.relu(self.inp(x))  # @@ACT@@", "h = torch.nn.functional.silu(self.inp(x))  # @@ACT@@")
src = src.replace("        # @@EXTRA@@", "        h = h / fc.all_reduce(h.detach().abs().amax(), \"max\", dist.group.WORLD)")
open("model.py", "w").write(src)
PY
cp model.py model_2.py.txt
python3 model.py 2
