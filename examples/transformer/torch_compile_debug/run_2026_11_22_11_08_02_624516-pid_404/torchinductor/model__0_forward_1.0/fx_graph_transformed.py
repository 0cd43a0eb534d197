class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[8, 64, 128]", primals_2: "f32[128]", primals_3: "f32[384, 128]", primals_4: "f32[128, 128]", primals_5: "f32[128]", primals_6: "f32[512, 128]", primals_7: "f32[512]", primals_8: "f32[128, 512]", primals_9: "f32[128]"):
        # File: /tmp/inductor-example/model.py:16 in forward, code: rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        pow_1: "f32[8, 64, 128]" = torch.ops.aten.pow.Tensor_Scalar(primals_1, 2)
        mean: "f32[8, 64, 1]" = torch.ops.aten.mean.dim(pow_1, [-1], True);  pow_1 = None
        add: "f32[8, 64, 1]" = torch.ops.aten.add.Tensor(mean, 1e-06);  mean = None
        rsqrt: "f32[8, 64, 1]" = torch.ops.aten.rsqrt.default(add);  add = None

        # File: /tmp/inductor-example/model.py:17 in forward, code: return x * rms * self.weight
        mul: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(primals_1, rsqrt)
        mul_1: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(mul, primals_2);  mul = primals_2 = None

        # File: /tmp/inductor-example/model.py:29 in forward, code: q, k, v = self.qkv(x).split(d, dim=-1)
        permute: "f32[128, 384]" = torch.ops.aten.permute.default(primals_3, [1, 0])
        view: "f32[512, 128]" = torch.ops.aten.reshape.default(mul_1, [512, 128]);  mul_1 = None
        mm: "f32[512, 384]" = torch.ops.aten.mm.default(view, permute);  permute = None
        view_1: "f32[8, 64, 384]" = torch.ops.aten.reshape.default(mm, [8, 64, 384]);  mm = None
        split = torch.ops.aten.split.Tensor(view_1, 128, -1);  view_1 = None
        getitem: "f32[8, 64, 128]" = split[0]
        getitem_1: "f32[8, 64, 128]" = split[1]
        getitem_2: "f32[8, 64, 128]" = split[2];  split = None

        # File: /tmp/inductor-example/model.py:30 in forward, code: q = q.view(b, t, self.heads, -1).transpose(1, 2)
        view_2: "f32[8, 64, 4, 32]" = torch.ops.aten.reshape.default(getitem, [8, 64, 4, -1]);  getitem = None
        permute_1: "f32[8, 4, 64, 32]" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None

        # File: /tmp/inductor-example/model.py:31 in forward, code: k = k.view(b, t, self.heads, -1).transpose(1, 2)
        view_3: "f32[8, 64, 4, 32]" = torch.ops.aten.reshape.default(getitem_1, [8, 64, 4, -1]);  getitem_1 = None
        permute_2: "f32[8, 4, 64, 32]" = torch.ops.aten.permute.default(view_3, [0, 2, 1, 3]);  view_3 = None

        # File: /tmp/inductor-example/model.py:32 in forward, code: v = v.view(b, t, self.heads, -1).transpose(1, 2)
        view_4: "f32[8, 64, 4, 32]" = torch.ops.aten.reshape.default(getitem_2, [8, 64, 4, -1]);  getitem_2 = None
        permute_3: "f32[8, 4, 64, 32]" = torch.ops.aten.permute.default(view_4, [0, 2, 1, 3]);  view_4 = None

        # File: /tmp/inductor-example/model.py:33 in forward, code: y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        _scaled_dot_product_efficient_attention = torch.ops.aten._scaled_dot_product_efficient_attention.default(permute_1, permute_2, permute_3, None, True, 0.0, True)
        getitem_3: "f32[8, 4, 64, 32]" = _scaled_dot_product_efficient_attention[0]
        getitem_4: "f32[8, 4, 64]" = _scaled_dot_product_efficient_attention[1]
        getitem_5: "i64[]" = _scaled_dot_product_efficient_attention[2]
        getitem_6: "i64[]" = _scaled_dot_product_efficient_attention[3];  _scaled_dot_product_efficient_attention = None

        # File: /tmp/inductor-example/model.py:34 in forward, code: return self.proj(y.transpose(1, 2).reshape(b, t, d))
        permute_4: "f32[8, 64, 4, 32]" = torch.ops.aten.permute.default(getitem_3, [0, 2, 1, 3])
        view_5: "f32[8, 64, 128]" = torch.ops.aten.reshape.default(permute_4, [8, 64, 128]);  permute_4 = None
        permute_5: "f32[128, 128]" = torch.ops.aten.permute.default(primals_4, [1, 0])
        view_6: "f32[512, 128]" = torch.ops.aten.reshape.default(view_5, [512, 128]);  view_5 = None
        mm_1: "f32[512, 128]" = torch.ops.aten.mm.default(view_6, permute_5);  view_6 = permute_5 = None
        view_7: "f32[8, 64, 128]" = torch.ops.aten.reshape.default(mm_1, [8, 64, 128])

        # File: /tmp/inductor-example/model.py:47 in forward, code: x = x + self.attn(self.norm1(x))
        add_1: "f32[8, 64, 128]" = torch.ops.aten.add.Tensor(primals_1, view_7);  view_7 = None

        # File: /tmp/inductor-example/model.py:16 in forward, code: rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        pow_2: "f32[8, 64, 128]" = torch.ops.aten.pow.Tensor_Scalar(add_1, 2)
        mean_1: "f32[8, 64, 1]" = torch.ops.aten.mean.dim(pow_2, [-1], True);  pow_2 = None
        add_2: "f32[8, 64, 1]" = torch.ops.aten.add.Tensor(mean_1, 1e-06);  mean_1 = None
        rsqrt_1: "f32[8, 64, 1]" = torch.ops.aten.rsqrt.default(add_2);  add_2 = None

        # File: /tmp/inductor-example/model.py:17 in forward, code: return x * rms * self.weight
        mul_2: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(add_1, rsqrt_1)
        mul_3: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(mul_2, primals_5);  mul_2 = None

        # File: /tmp/inductor-example/model.py:48 in forward, code: h = F.silu(self.up(self.norm2(x)))
        view_8: "f32[512, 128]" = torch.ops.aten.reshape.default(mul_3, [512, 128]);  mul_3 = None
        permute_6: "f32[128, 512]" = torch.ops.aten.permute.default(primals_6, [1, 0])
        addmm: "f32[512, 512]" = torch.ops.aten.addmm.default(primals_7, view_8, permute_6);  primals_7 = permute_6 = None
        view_9: "f32[8, 64, 512]" = torch.ops.aten.reshape.default(addmm, [8, 64, 512])
        neg: "f32[8, 64, 512]" = torch.ops.aten.neg.default(view_9)
        exp: "f32[8, 64, 512]" = torch.ops.aten.exp.default(neg);  neg = None
        add_3: "f32[8, 64, 512]" = torch.ops.aten.add.Tensor(exp, 1);  exp = None
        div: "f32[8, 64, 512]" = torch.ops.aten.div.Tensor(view_9, add_3);  view_9 = add_3 = None

        # File: /tmp/inductor-example/model.py:49 in forward, code: return x + self.down(h)
        view_10: "f32[512, 512]" = torch.ops.aten.reshape.default(div, [512, 512]);  div = None
        permute_7: "f32[512, 128]" = torch.ops.aten.permute.default(primals_8, [1, 0])
        mm_default: "f32[512, 128]" = torch.ops.aten.mm.default(view_10, permute_7);  permute_7 = None
        add_tensor: "f32[512, 128]" = torch.ops.aten.add.Tensor(primals_9, mm_default);  primals_9 = mm_default = None
        view_11: "f32[8, 64, 128]" = torch.ops.aten.reshape.default(add_tensor, [8, 64, 128]);  add_tensor = None
        add_4: "f32[8, 64, 128]" = torch.ops.aten.add.Tensor(add_1, view_11);  add_1 = view_11 = None
        return (add_4, primals_1, primals_3, primals_4, primals_5, primals_6, primals_8, rsqrt, view, permute_1, permute_2, permute_3, getitem_3, getitem_4, getitem_5, getitem_6, mm_1, rsqrt_1, view_8, addmm, view_10)
