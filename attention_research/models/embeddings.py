"""Token embeddings and the output projection, the same for both model families.

Tying (``model.tie_embeddings``): Press & Wolf 2017 ("Using the Output Embedding to
Improve Language Models") and Inan et al. 2017 use one matrix E for the target
embedding and the output projection, logits = E h + b. With a joint vocabulary, as
ours is (one SentencePiece model for both languages; the symbol tasks share their
symbols), the source embedding can be that matrix too (``all``: three-way tying, as
in Vaswani et al. 2017, §3.4). Where the decoder's output h is wider or narrower
than the embeddings, a linear map to the embedding size comes first (Press & Wolf's
projection P: logits = E P h + b).

Token dropout (``model.token_dropout``): in training, each token's whole embedding
vector is zeroed with probability p and the rest scaled by 1/(1 - p), so the model
cannot lean on any one word: the word dropout of Sennrich et al. 2016 ("Edinburgh
Neural Machine Translation Systems for WMT 16") and Sennrich & Zhang 2019, here per
token rather than per word type (Gal & Ghahramani 2016, §4, drop types).

Every family passes its source embeddings through Flax's ``perturb`` under
``PERTURBATION``: a zero a plain ``apply`` ignores, whose gradient is the gradient with
respect to the embeddings, from which implicit attention is read
(``analysis/implicit.py``).
"""

from __future__ import annotations

import flax.linen as nn

TIES = ("none", "target", "all")
PERTURBATION = "source_embeddings"  # the name every family gives Flax's ``perturb``


class TiedReadout(nn.Module):
    """logits = E (P h) + b with E the (shared) target embedding's matrix."""

    embed: nn.Embed

    @nn.compact
    def __call__(self, features):
        if features.shape[-1] != self.embed.features:
            features = nn.Dense(self.embed.features, use_bias=False, name="project")(features)
        bias = self.param("bias", nn.initializers.zeros, (self.embed.num_embeddings,))
        return self.embed.attend(features) + bias


def make_embeddings(tie: str, source_vocab_size: int, target_vocab_size: int,
                    features: int):
    """(source embedding, target embedding, readout) for a model's ``setup``. Untied,
    their parameter names are those of every earlier checkpoint."""
    if tie not in TIES:
        raise ValueError(f"unknown model.tie_embeddings {tie!r}; valid choices: "
                         f"{', '.join(TIES)}")
    if tie == "all":
        if source_vocab_size != target_vocab_size:
            raise ValueError("model.tie_embeddings=all shares one matrix between source and "
                             f"target, so their vocabularies must be one: got "
                             f"{source_vocab_size} and {target_vocab_size} entries")
        shared = nn.Embed(target_vocab_size, features, name="shared_embed")
        return shared, shared, TiedReadout(shared, name="readout")
    source = nn.Embed(source_vocab_size, features, name="source_embed")
    target = nn.Embed(target_vocab_size, features, name="target_embed")
    if tie == "target":
        return source, target, TiedReadout(target, name="readout")
    return source, target, nn.Dense(target_vocab_size, name="readout")


def token_dropout(rate: float) -> nn.Dropout:
    """Dropout of whole token vectors: the mask is shared along the feature axis."""
    return nn.Dropout(rate, broadcast_dims=(-1,))
