# torchvision: a ResNet-18 (random init, 10 classes) trained for two SGD steps on small images. The model code
# lives in the installed package (site-packages/torchvision/models/resnet.py).
import torch
import torch.nn.functional as F
import torchvision


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).cuda()
    model.train()
    compiled = torch.compile(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(2):
        x = torch.randn(4, 3, 64, 64, device="cuda")
        y = torch.randint(0, 10, (4,), device="cuda")
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print("step", step, "loss", loss.item())


if __name__ == "__main__":
    main()
