"""Forms of the public tools: the roofline chart's choices and the napkin calculator's inputs.

Choices come from the physics catalogs, so a new accelerator or model appears without code here;
every bound is checked so bad input becomes a message on the form, never a server error.
"""

from __future__ import annotations

from django import forms

from content.physics import accelerator, accelerators, dtype, dtypes, models

# Formats in which a part has a published peak rate (the roofline needs one).
RATE_FORMATS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")
WEIGHT_FORMATS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "nf4", "fp4")
KV_FORMATS = ("fp32", "bf16", "fp16", "fp8", "int8")

MAX_GPUS = 4096
MAX_BATCH = 65536
MAX_CONTEXT = 10_000_000
MAX_PRICE = 1000


def accelerator_choices() -> list[tuple[str, str]]:
    return [(part.key, part.name) for part in accelerators()]


def _format_choices(names) -> list[tuple[str, str]]:
    known = {d.name for d in dtypes()}
    return [(name, name) for name in names if name in known or _resolves(name)]


def _resolves(name: str) -> bool:
    try:
        dtype(name)
    except KeyError:
        return False
    return True


def model_choices() -> list[tuple[str, str]]:
    return [(m.key, m.name) for m in models()]


def _unknown(kind: str) -> dict[str, str]:
    return {"invalid_choice": f"Unknown {kind} “%(value)s”: pick one from the list."}


class RooflineForm(forms.Form):
    """Which accelerator and which number format the roofline is drawn for."""

    accelerator = forms.ChoiceField(label="Accelerator", error_messages=_unknown("accelerator"))
    dtype = forms.ChoiceField(label="Data type", error_messages=_unknown("data type"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["accelerator"].choices = accelerator_choices()
        self.fields["dtype"].choices = _format_choices(RATE_FORMATS)

    def clean(self):
        data = super().clean()
        if "accelerator" in data and "dtype" in data:
            part = accelerator(data["accelerator"])
            try:
                part.peak(data["dtype"])
            except KeyError:
                supported = ", ".join(part.peak_flops)
                self.add_error(
                    "dtype",
                    f"The {part.name} has no published {data['dtype']} rate; "
                    f"choose one of {supported}.",
                )
        return data


class CalculatorForm(forms.Form):
    """The napkin calculator's inputs; sizes are bounded to keep every answer meaningful."""

    model = forms.ChoiceField(label="Model", error_messages=_unknown("model"))
    weight_dtype = forms.ChoiceField(
        label="Weight precision", error_messages=_unknown("weight precision")
    )
    kv_dtype = forms.ChoiceField(
        label="KV-cache precision", error_messages=_unknown("KV-cache precision")
    )
    accelerator = forms.ChoiceField(label="Accelerator", error_messages=_unknown("accelerator"))
    gpus = forms.IntegerField(
        label="Devices",
        min_value=1,
        max_value=MAX_GPUS,
        help_text="GPUs, TPUs or CPUs of the chosen kind; the model is split evenly.",
    )
    batch = forms.IntegerField(
        label="Batch size",
        min_value=1,
        max_value=MAX_BATCH,
        help_text="Sequences decoded together.",
    )
    context = forms.IntegerField(
        label="Context length",
        min_value=1,
        max_value=MAX_CONTEXT,
        help_text="Tokens held in the KV cache per sequence (a warning, not a refusal, past "
        "the model's own maximum).",
    )
    prompt = forms.IntegerField(
        label="Prompt length", min_value=1, max_value=MAX_CONTEXT, help_text="Tokens of prefill."
    )
    level = forms.ChoiceField(
        label="Memory counted",
        choices=(
            ("serving", "A serving engine's budget (vLLM, 90%)"),
            ("framework", "What PyTorch can allocate"),
            ("driver", "The driver's total"),
        ),
        error_messages=_unknown("memory level"),
        help_text="What a fit is judged against: a serving engine keeps a tenth of the memory "
        "free by default; the driver's total is more than any program can use.",
    )
    price = forms.DecimalField(
        label="Price per device-hour ($)",
        required=False,
        min_value=0.01,
        max_value=MAX_PRICE,
        decimal_places=2,
        max_digits=7,
        help_text="Leave empty for the catalog's dated price.",
    )

    DEFAULTS = {
        "model": "llama-2-7b",
        "weight_dtype": "fp16",
        "kv_dtype": "fp16",
        "accelerator": "h100-sxm",
        "gpus": 1,
        "batch": 1,
        "context": 4096,
        "prompt": 1024,
        "level": "serving",
        "price": "",
    }

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = model_choices()
        self.fields["weight_dtype"].choices = _format_choices(WEIGHT_FORMATS)
        self.fields["kv_dtype"].choices = _format_choices(KV_FORMATS)
        self.fields["accelerator"].choices = accelerator_choices()

    @classmethod
    def from_query(cls, query) -> CalculatorForm:
        """Bound to the query string, with defaults for what it leaves out."""
        data = {name: query.get(name, default) for name, default in cls.DEFAULTS.items()}
        return cls(data)

    def clean(self):
        data = super().clean()
        if data.get("prompt") and data.get("context") and data["prompt"] > data["context"]:
            self.add_error("prompt", "The prompt cannot be longer than the context length.")
        if "accelerator" in data and data.get("price") is None:
            from courseware.calculator import catalog_price

            try:
                catalog_price(data["accelerator"])
            except KeyError:
                name = accelerator(data["accelerator"]).name
                self.add_error(
                    "price", f"The catalog has no price for the {name}: enter one per device-hour."
                )
        return data
