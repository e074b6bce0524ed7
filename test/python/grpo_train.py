"""A few steps of TRL's GRPOTrainer on CPU, rewarded by vtask through the Python package.

    python3 grpo_train.py ROWS.jsonl OUT.json [STEPS [ENV_DIR]]

ROWS are ``vtask export --format trl`` rows; the reward is ``vtask_reward`` asking the
``vtask serve`` at ``VTASK_URL``. With ENV_DIR (the rows' folder) the rows may include agent
tasks: ``environment_factory`` is ``trl_environments`` of the rows, and the chat template one
TRL knows how to parse tool calls from. The model is a tiny Llama initialised at random from a config
and the tokenizer is built here from a character vocabulary: nothing is downloaded. OUT gets
every scored completion with its reward, and the rewards the trainer logged per step.
"""

import json
import sys

import torch
from datasets import load_dataset
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, TrainerCallback
from trl import GRPOConfig, GRPOTrainer
from trl.chat_template_utils import add_response_schema, qwen3_chat_template

from vtask_reward import vtask_reward
from vtask_reward.trl_env import trl_environments

rows_path, out_path = sys.argv[1], sys.argv[2]
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
env_dir = sys.argv[4] if len(sys.argv) > 4 else None

# A vocabulary of the few characters that decide the verdicts (the digits of a math answer, a
# comma), so an untrained model writes passing and failing answers alike; the prompts' other
# characters read as <unk>, which is all a random model needs of them.
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]
CHARS = list(" ,ab17")
vocab = {t: i for i, t in enumerate(SPECIALS + CHARS)}
core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
core.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
core.decoder = decoders.Fuse()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>")
tokenizer.chat_template = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)
if env_dir:  # tools need a template TRL can render and parse tool calls with
    tokenizer.chat_template = qwen3_chat_template
    tokenizer = add_response_schema(tokenizer)

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(
    vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=256,
    pad_token_id=vocab["<pad>"], bos_token_id=vocab["<s>"], eos_token_id=vocab["</s>"],
))

scored = []


def reward(prompts, completions, **columns):
    """vtask_reward, with every completion and its reward kept for the comparison."""
    rewards = vtask_reward(prompts, completions, **columns)
    call = 1 + (scored[-1]["call"] if scored else 0)
    for task_id, completion, r in zip(columns["task_id"], completions, rewards):
        scored.append({"call": call, "task_id": task_id, "completion": completion[-1]["content"], "reward": r})
    return rewards


reward.__name__ = "vtask"


class KeepLogs(TrainerCallback):
    def __init__(self):
        self.logs = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "reward" in logs:
            self.logs.append({"step": state.global_step, **{k: v for k, v in logs.items() if "reward" in k or k.startswith("vtask/")}})


logs = KeepLogs()
dataset = load_dataset("json", data_files=rows_path)["train"]
trainer = GRPOTrainer(
    model=model,
    processing_class=tokenizer,
    reward_funcs=reward,
    train_dataset=dataset,
    environment_factory=trl_environments(dataset, base_dir=env_dir) if env_dir else None,
    args=GRPOConfig(
        output_dir=out_path + ".run", use_cpu=True, max_steps=steps, per_device_train_batch_size=4 * len(dataset),  # every prompt, 4 completions each, every step
        num_generations=4, max_completion_length=8, logging_steps=1, save_strategy="no",
        report_to="none", seed=0, learning_rate=1e-3,
    ),
    callbacks=[logs],
)
trainer.train()
json.dump({"scored": scored, "logged": logs.logs}, open(out_path, "w"))
print(json.dumps({"completions": len(scored), "steps": len(logs.logs)}))
