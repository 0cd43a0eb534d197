class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[8, 64, 128]", primals_3: "f32[384, 128]", primals_4: "f32[128, 128]", primals_5: "f32[128]", primals_6: "f32[512, 128]", primals_8: "f32[128, 512]", rsqrt: "f32[8, 64, 1]", view: "f32[512, 128]", permute_1: "f32[8, 4, 64, 32]", permute_2: "f32[8, 4, 64, 32]", permute_3: "f32[8, 4, 64, 32]", getitem_3: "f32[8, 4, 64, 32]", getitem_4: "f32[8, 4, 64]", getitem_5: "i64[]", getitem_6: "i64[]", mm_1: "f32[512, 128]", rsqrt_1: "f32[8, 64, 1]", view_8: "f32[512, 128]", addmm: "f32[512, 512]", view_10: "f32[512, 512]", tangents_1: "f32[8, 64, 128]"):
        # File: /tmp/inductor-example/model.py:49 in forward, code: return x + self.down(h)
        view_12: "f32[512, 128]" = torch.ops.aten.view.default(tangents_1, [512, 128])
        permute_7: "f32[512, 128]" = torch.ops.aten.permute.default(primals_8, [1, 0]);  primals_8 = None
        permute_8: "f32[128, 512]" = torch.ops.aten.permute.default(permute_7, [1, 0]);  permute_7 = None
        mm_2: "f32[512, 512]" = torch.ops.aten.mm.default(view_12, permute_8);  permute_8 = None
        permute_9: "f32[128, 512]" = torch.ops.aten.permute.default(view_12, [1, 0])
        mm_3: "f32[128, 512]" = torch.ops.aten.mm.default(permute_9, view_10);  permute_9 = view_10 = None
        sum_1: "f32[1, 128]" = torch.ops.aten.sum.dim_IntList(view_12, [0], True);  view_12 = None
        view_13: "f32[128]" = torch.ops.aten.view.default(sum_1, [128]);  sum_1 = None
        view_14: "f32[8, 64, 512]" = torch.ops.aten.view.default(mm_2, [8, 64, 512]);  mm_2 = None

        # File: /tmp/inductor-example/model.py:48 in forward, code: h = F.silu(self.up(self.norm2(x)))
        view_9: "f32[8, 64, 512]" = torch.ops.aten.view.default(addmm, [8, 64, 512]);  addmm = None
        neg: "f32[8, 64, 512]" = torch.ops.aten.neg.default(view_9)
        exp: "f32[8, 64, 512]" = torch.ops.aten.exp.default(neg);  neg = None
        add_3: "f32[8, 64, 512]" = torch.ops.aten.add.Tensor(exp, 1);  exp = None
        reciprocal: "f32[8, 64, 512]" = torch.ops.aten.reciprocal.default(add_3);  add_3 = None
        mul_4: "f32[8, 64, 512]" = torch.ops.aten.mul.Tensor(reciprocal, 1);  reciprocal = None
        mul_5: "f32[8, 64, 512]" = torch.ops.aten.mul.Tensor(view_14, mul_4);  view_14 = None
        sub: "f32[8, 64, 512]" = torch.ops.aten.sub.Tensor(1, mul_4);  mul_4 = None
        mul_6: "f32[8, 64, 512]" = torch.ops.aten.mul.Tensor(view_9, sub);  view_9 = sub = None
        add_6: "f32[8, 64, 512]" = torch.ops.aten.add.Tensor(mul_6, 1);  mul_6 = None
        mul_7: "f32[8, 64, 512]" = torch.ops.aten.mul.Tensor(mul_5, add_6);  mul_5 = add_6 = None
        view_15: "f32[512, 512]" = torch.ops.aten.view.default(mul_7, [512, 512]);  mul_7 = None
        permute_6: "f32[128, 512]" = torch.ops.aten.permute.default(primals_6, [1, 0]);  primals_6 = None
        permute_12: "f32[512, 128]" = torch.ops.aten.permute.default(permute_6, [1, 0]);  permute_6 = None
        mm_4: "f32[512, 128]" = torch.ops.aten.mm.default(view_15, permute_12);  permute_12 = None
        permute_13: "f32[512, 512]" = torch.ops.aten.permute.default(view_15, [1, 0])
        mm_5: "f32[512, 128]" = torch.ops.aten.mm.default(permute_13, view_8);  permute_13 = view_8 = None
        sum_2: "f32[1, 512]" = torch.ops.aten.sum.dim_IntList(view_15, [0], True);  view_15 = None
        view_16: "f32[512]" = torch.ops.aten.view.default(sum_2, [512]);  sum_2 = None
        view_17: "f32[8, 64, 128]" = torch.ops.aten.view.default(mm_4, [8, 64, 128]);  mm_4 = None

        # File: /tmp/inductor-example/model.py:34 in forward, code: return self.proj(y.transpose(1, 2).reshape(b, t, d))
        view_7: "f32[8, 64, 128]" = torch.ops.aten.view.default(mm_1, [8, 64, 128]);  mm_1 = None

        # File: /tmp/inductor-example/model.py:47 in forward, code: x = x + self.attn(self.norm1(x))
        add_1: "f32[8, 64, 128]" = torch.ops.aten.add.Tensor(primals_1, view_7);  view_7 = None

        # File: /tmp/inductor-example/model.py:17 in forward, code: return x * rms * self.weight
        mul_2: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(add_1, rsqrt_1)
        mul_8: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(view_17, mul_2);  mul_2 = None
        mul_9: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(view_17, primals_5);  view_17 = primals_5 = None
        sum_3: "f32[1, 1, 128]" = torch.ops.aten.sum.dim_IntList(mul_8, [0, 1], True);  mul_8 = None
        view_18: "f32[128]" = torch.ops.aten.view.default(sum_3, [128]);  sum_3 = None
        mul_10: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(mul_9, add_1)
        mul_11: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(mul_9, rsqrt_1);  mul_9 = None
        sum_4: "f32[8, 64, 1]" = torch.ops.aten.sum.dim_IntList(mul_10, [2], True);  mul_10 = None
        add_7: "f32[8, 64, 128]" = torch.ops.aten.add.Tensor(tangents_1, mul_11);  tangents_1 = mul_11 = None

        # File: /tmp/inductor-example/model.py:16 in forward, code: rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        pow_3: "f32[8, 64, 1]" = torch.ops.aten.pow.Tensor_Scalar(rsqrt_1, 3);  rsqrt_1 = None
        mul_12: "f32[8, 64, 1]" = torch.ops.aten.mul.Scalar(sum_4, -0.5);  sum_4 = None
        mul_13: "f32[8, 64, 1]" = torch.ops.aten.mul.Tensor(mul_12, pow_3);  mul_12 = pow_3 = None
        expand: "f32[8, 64, 128]" = torch.ops.aten.expand.default(mul_13, [8, 64, 128]);  mul_13 = None
        div_1: "f32[8, 64, 128]" = torch.ops.aten.div.Scalar(expand, 128);  expand = None
        pow_4: "f32[8, 64, 128]" = torch.ops.aten.pow.Tensor_Scalar(add_1, 1.0);  add_1 = None
        mul_14: "f32[8, 64, 128]" = torch.ops.aten.mul.Scalar(pow_4, 2.0);  pow_4 = None
        mul_15: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(div_1, mul_14);  div_1 = mul_14 = None
        add_8: "f32[8, 64, 128]" = torch.ops.aten.add.Tensor(add_7, mul_15);  add_7 = mul_15 = None

        # File: /tmp/inductor-example/model.py:34 in forward, code: return self.proj(y.transpose(1, 2).reshape(b, t, d))
        view_19: "f32[512, 128]" = torch.ops.aten.view.default(add_8, [512, 128]);  add_8 = None
        permute_16: "f32[128, 512]" = torch.ops.aten.permute.default(view_19, [1, 0])
        permute_4: "f32[8, 64, 4, 32]" = torch.ops.aten.permute.default(getitem_3, [0, 2, 1, 3])
        view_5: "f32[8, 64, 128]" = torch.ops.aten.view.default(permute_4, [8, 64, 128]);  permute_4 = None
        view_6: "f32[512, 128]" = torch.ops.aten.view.default(view_5, [512, 128]);  view_5 = None
        mm_6: "f32[128, 128]" = torch.ops.aten.mm.default(permute_16, view_6);  permute_16 = view_6 = None
        permute_5: "f32[128, 128]" = torch.ops.aten.permute.default(primals_4, [1, 0]);  primals_4 = None
        permute_18: "f32[128, 128]" = torch.ops.aten.permute.default(permute_5, [1, 0]);  permute_5 = None
        mm_7: "f32[512, 128]" = torch.ops.aten.mm.default(view_19, permute_18);  view_19 = permute_18 = None
        view_20: "f32[8, 64, 128]" = torch.ops.aten.view.default(mm_7, [8, 64, 128]);  mm_7 = None
        view_21: "f32[8, 64, 4, 32]" = torch.ops.aten.view.default(view_20, [8, 64, 4, 32]);  view_20 = None
        permute_20: "f32[8, 4, 64, 32]" = torch.ops.aten.permute.default(view_21, [0, 2, 1, 3]);  view_21 = None

        # File: /tmp/inductor-example/model.py:33 in forward, code: y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        _scaled_dot_product_efficient_attention_backward = torch.ops.aten._scaled_dot_product_efficient_attention_backward.default(permute_20, permute_1, permute_2, permute_3, None, getitem_3, getitem_4, getitem_5, getitem_6, 0.0, [True, True, True, False], True);  permute_20 = permute_1 = permute_2 = permute_3 = getitem_3 = getitem_4 = getitem_5 = getitem_6 = None
        getitem_7: "f32[8, 4, 64, 32]" = _scaled_dot_product_efficient_attention_backward[0]
        getitem_8: "f32[8, 4, 64, 32]" = _scaled_dot_product_efficient_attention_backward[1]
        getitem_9: "f32[8, 4, 64, 32]" = _scaled_dot_product_efficient_attention_backward[2];  _scaled_dot_product_efficient_attention_backward = None

        # File: /tmp/inductor-example/model.py:32 in forward, code: v = v.view(b, t, self.heads, -1).transpose(1, 2)
        permute_21: "f32[8, 64, 4, 32]" = torch.ops.aten.permute.default(getitem_9, [0, 2, 1, 3]);  getitem_9 = None
        view_22: "f32[8, 64, 128]" = torch.ops.aten.view.default(permute_21, [8, 64, 128]);  permute_21 = None

        # File: /tmp/inductor-example/model.py:31 in forward, code: k = k.view(b, t, self.heads, -1).transpose(1, 2)
        permute_22: "f32[8, 64, 4, 32]" = torch.ops.aten.permute.default(getitem_8, [0, 2, 1, 3]);  getitem_8 = None
        view_23: "f32[8, 64, 128]" = torch.ops.aten.view.default(permute_22, [8, 64, 128]);  permute_22 = None

        # File: /tmp/inductor-example/model.py:30 in forward, code: q = q.view(b, t, self.heads, -1).transpose(1, 2)
        permute_23: "f32[8, 64, 4, 32]" = torch.ops.aten.permute.default(getitem_7, [0, 2, 1, 3]);  getitem_7 = None
        view_24: "f32[8, 64, 128]" = torch.ops.aten.view.default(permute_23, [8, 64, 128]);  permute_23 = None

        # File: /tmp/inductor-example/model.py:29 in forward, code: q, k, v = self.qkv(x).split(d, dim=-1)
        cat: "f32[8, 64, 384]" = torch.ops.aten.cat.default([view_24, view_23, view_22], 2);  view_24 = view_23 = view_22 = None
        view_25: "f32[512, 384]" = torch.ops.aten.view.default(cat, [512, 384]);  cat = None
        permute_24: "f32[384, 512]" = torch.ops.aten.permute.default(view_25, [1, 0])
        mm_8: "f32[384, 128]" = torch.ops.aten.mm.default(permute_24, view);  permute_24 = view = None
        permute: "f32[128, 384]" = torch.ops.aten.permute.default(primals_3, [1, 0]);  primals_3 = None
        permute_26: "f32[384, 128]" = torch.ops.aten.permute.default(permute, [1, 0]);  permute = None
        mm_9: "f32[512, 128]" = torch.ops.aten.mm.default(view_25, permute_26);  view_25 = permute_26 = None
        view_26: "f32[8, 64, 128]" = torch.ops.aten.view.default(mm_9, [8, 64, 128]);  mm_9 = None

        # File: /tmp/inductor-example/model.py:17 in forward, code: return x * rms * self.weight
        mul: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(primals_1, rsqrt);  primals_1 = rsqrt = None
        mul_16: "f32[8, 64, 128]" = torch.ops.aten.mul.Tensor(view_26, mul);  view_26 = mul = None
        sum_5: "f32[1, 1, 128]" = torch.ops.aten.sum.dim_IntList(mul_16, [0, 1], True);  mul_16 = None
        view_27: "f32[128]" = torch.ops.aten.view.default(sum_5, [128]);  sum_5 = None
        return (None, view_27, mm_8, mm_6, view_18, mm_5, view_16, mm_3, view_13)
