"""Real replies from NoMIRACL's published results, with the label NoMIRACL's code gives each (read off its code).

Source: github.com/project-miracl/nomiracl, ``results/baselines/relevant/sw.test.vanilla_prompt.jsonl``
(commit 24c1ab47) and ``results/baselines/non_relevant/zh.test.vanilla_prompt.jsonl`` (commit
85fc6bcb), the first complete lines of each (``query_id`` and ``results``; the prompts are left out).
Each expected label follows ``VanillaTemplate.postprocess`` (``nomiracl/prompts/template.py``): both
phrases → Invalid (its ``count_word`` never counts a phrase), then "i don't know", then "yes, answer is
present", then "answer is present" / "answer is not present", then a bracketed number in a reply
shorter than 10 characters, else Invalid.
"""

from __future__ import annotations

A, N, I = "Yes, answer is present", "I don't know", "Invalid"  # noqa: E741

SW_RELEVANT = [
    (
        "74738#0",
        {
            "gpt-4-azure": ("Yes, answer is present.", A),
            "llama-2-13b-chat": (
                "\nYes, answer is present in context [1].\n\nPlease note that the answer is present in "
                "the first context, and the other contexts are just additional information.",
                A,
            ),
            # repeats the instruction: both phrases, so Invalid (template.py, the "both" branch)
            "llama-2-7b-chat": (
                'Please answer the question "Ni mto upi mrefu zaidi duniani?" with "Yes, answer is '
                'present" or "I don\'t know".',
                I,
            ),
            "Mixtral-8x7B-Instruct-v0.1": (
                'Yes, answer is present.\n\nEXPLANATION:\nThe context [2] "Nile" states that the Nile '
                "river is the longest in the world with a length of 6,650 kilometers. This answers",
                A,
            ),
            "llama-2-70b-chat": (
                "Yes, answer is present in context [1].\nI don't know in context [2].\nI don't know in "
                "context [3].\nI don't know in context [4].\nI don't know in",
                I,
            ),
            "gpt-3.5-turbo-azure": ("Yes, answer is present", A),
            "Mistral-7B-Instruct-v0.2": (
                "I don't know. The question asks about rivers outside of Africa, but all the contexts "
                "provided are about rivers within Africa.",
                N,
            ),
            "Orca-2-7b": ("Yes, answer is present", A),
            "Orca-2-13b": ("Yes, answer is present", A),
            "flan-t5-xxl": ("Yes, answer is present", A),
            "aya-101": ("Nile", I),  # shorter than 10 characters but no [n]
        },
    ),
    (
        "17366#0",
        {
            "gpt-4-azure": ("Yes, answer is present.", A),
            "llama-2-13b-chat": (
                "\nYes, answer is present.\n\nPlease let me know if you need any clarification or if you "
                "would like to ask another question.",
                A,
            ),
            "llama-2-7b-chat": (
                "Bad Boy entertainment ilianza na nani?\nYes, answer is present. Bad Boy Entertainment "
                'is a record label founded by Sean "Diddy" Combs in 1993.',
                A,
            ),
            "Mixtral-8x7B-Instruct-v0.1": (
                'Yes, answer is present. The context is: "Bad Boy Records: Bad Boy Records (jina kamili '
                "ni Bad Boy Entertainment) ni studio ya kurekodia muziki ya East Coast Hip-Hop/R&",
                A,
            ),
            "llama-2-70b-chat": (
                "Yes, answer is present in context 1.\nYes, answer is present in context 2.\nYes, answer "
                "is present in context 3.\nYes, answer is present in context 4.\nYes, answer is present in",
                A,
            ),
            "gpt-3.5-turbo-azure": (
                'Yes, answer is present. Bad Boy entertainment ilianzishwa na Sean "Diddy" Combs.',
                A,
            ),
            "Mistral-7B-Instruct-v0.2": (
                "I don't know. The question asks about who Bad Boy Entertainment was associated with, "
                "but none of the contexts mention that directly. The contexts mostly focus on the "
                "background and history of Bad Boy Entertainment, Sean Combs, and various artists",
                N,
            ),
            "Orca-2-7b": ("Yes, answer is present", A),
            "Orca-2-13b": ("Yes, answer is present", A),
            "flan-t5-xxl": ("Yes, answer is present", A),
            "aya-101": ('Sean "Diddy" Combs', I),
        },
    ),
]

ZH_NON_RELEVANT = [
    (
        "4272508-0",
        {
            "gpt-4-azure": ("Yes, answer is present.", A),
            "llama-2-13b-chat": (
                '\nPlease answer the following question:\n\n欧洲有哪些唱歌比赛？\n\nPlease answer "Yes, '
                'answer is present" or "I don\'t know" based on the context',
                I,
            ),
            "llama-2-7b-chat": (
                "Yes, answer is present. The question asks about the European Song Contest, and the "
                "contexts provide information about the contest, including the number of participating "
                "countries, the location of the contest, and the rules of the contest.",
                A,
            ),
            "flan-t5-xxl": ("Yes, answer is present", A),
            "Mixtral-8x7B-Instruct-v0.1": ("Yes, answer is present.", A),
            "llama-2-70b-chat": (
                "Yes, answer is present in context 1.\nYes, answer is present in context 2.\nYes, answer "
                "is present in context 3.\nYes, answer is present in context 4.\nYes, answer is present in",
                A,
            ),
            "gpt-3.5-turbo-azure": ("Yes, answer is present", A),
            "Mistral-7B-Instruct-v0.2": (
                "Yes, answer is present. The contexts provide a list of countries that have participated "
                "in the European Singing Contest (欧洲歌唱大赛) since its inception in 1956.",
                A,
            ),
            "Orca-2-7b": ("\nQuestion: 欧洲有哪些唱歌比赛？\n\nAnswer: Yes, answer is present.", A),
            "Orca-2-13b": ("Yes, answer is present", A),
            "aya-101": ("Yes, answer is present", A),
        },
    ),
    (
        "5035128-0",
        {
            "gpt-4-azure": ("Yes, answer is present.", A),
            "llama-2-13b-chat": (
                "\nYes, answer is present in [1], [2], [3], [5], [6], [7], [9], and [10].",
                A,
            ),
            "llama-2-7b-chat": (
                "Yes, answer is present. The question is asking for the name of the mother of Zeus "
                "(Jupiter) in Greek mythology, and the answer is provided in the contexts.",
                A,
            ),
            "flan-t5-xxl": ("Yes, answer is present", A),
            "Mixtral-8x7B-Instruct-v0.1": ("I don't know.", N),
            "llama-2-70b-chat": ("Yes, answer is present.\n\nCan you answer the question now?", A),
            "gpt-3.5-turbo-azure": ("Yes, answer is present", A),
            "Mistral-7B-Instruct-v0.2": (
                "I don't know. While some contexts mention goddesses who were wives or lovers of Zeus, "
                "none of them explicitly state that Zeus' wife is mentioned in the given contexts.",
                N,
            ),
            "Orca-2-7b": ("Yes, answer is present", A),
            "Orca-2-13b": ("Yes, answer is present", A),
            "aya-101": ("勒托", I),  # an answer, not a verdict: Invalid
        },
    ),
    (
        "7857316-0",
        {
            "gpt-4-azure": ("Yes, answer is present.", A),
            # the repeated instruction is cut before "know": only the answer phrase is there
            "llama-2-13b-chat": (
                "\nPlease answer the question based on the given contexts.\n\nQuestion: 上海最宽的街道是哪里？"
                '\n\nPlease respond with "Yes, answer is present" or "I don\'t',
                A,
            ),
            "llama-2-7b-chat": (
                "Please answer the question based on the provided contexts. Do you know the answer?",
                I,
            ),
            "flan-t5-xxl": ("Yes, answer is present", A),
            "Mixtral-8x7B-Instruct-v0.1": (
                "Yes, answer is present.\n\n---\n\nWhy is the answer yes, even though none of the "
                "contexts explicitly state that the street in question is the 'widest'? I think the key "
                "here is that context 1 (海",
                A,
            ),
            "llama-2-70b-chat": (
                "Yes, answer is present in context [1].\nThe answer is 海宁路 (Haining Road).",
                A,
            ),
            "gpt-3.5-turbo-azure": ("Yes, answer is present", A),
            # bracketed numbers, but not shorter than 10 characters: Invalid
            "Mistral-7B-Instruct-v0.2": (
                "Based on the contexts provided, the question asks for the location of the widest street "
                "in Shanghai. The contexts [1], [3], [4], [5], [6], [7], [8], [9], [1",
                I,
            ),
            "Orca-2-7b": ("Yes, answer is present", A),
            "Orca-2-13b": ("Yes, answer is present", A),
            "aya-101": ("Yes, answer is present", A),
        },
    ),
    (
        "4810345-0",
        {
            "gpt-4-azure": ("Yes, answer is present.", A),
            "llama-2-13b-chat": (
                "\nPlease answer the following question:\n\n日本有哪些小说家？\n\nPlease respond with "
                'either "Yes, answer is present" or "I don\'t know".',
                I,
            ),
            "llama-2-7b-chat": (
                "Yes, answer is present. There are several Japanese novelists mentioned in the contexts, "
                "including:\n\n1. 三津田信三\n2. 和泉桂\n3. 有栖川有\ufffd",
                A,
            ),
            "flan-t5-xxl": ("Yes, answer is present", A),
            "Mixtral-8x7B-Instruct-v0.1": (
                'Yes, answer is present.\n\nThe reason is that Context [1] contains the word "小說家" '
                '(novelist) and "[...] is the most promising and promising writer." ([...]是最具\ufffd\ufffd',
                A,
            ),
            "llama-2-70b-chat": (
                "Yes, answer is present.\n\nCONTEXT:\n日本有很多小说家，其中有些人很有名气，比如三津田信三、和泉桂",
                A,
            ),
            "gpt-3.5-turbo-azure": ("Yes, answer is present", A),
            "Mistral-7B-Instruct-v0.2": (
                "These contexts contain information about several Japanese novelists: Haruki Murakami, "
                "Jun'ichiro Tanizaki, Ryunosuke Akutagawa, Ryotaro Shiba, Yasunari Kawabata,",
                I,
            ),
            "Orca-2-7b": ("\nYes, answer is present", A),
            "Orca-2-13b": ("Yes, answer is present", A),
            "aya-101": ("Yes, answer is present", A),
        },
    ),
    (
        "487851-0",
        {
            "gpt-4-azure": ("I don't know.", N),
            # no "i don't know": the answer phrase wins over "answer is not present"
            "llama-2-13b-chat": (
                "\nYes, answer is present in [1].\nNo, answer is not present in the other contexts.",
                A,
            ),
            "llama-2-7b-chat": (
                'Yes, answer is present. The question is "What is the population of 神奈川県 (Kanagawa '
                'Prefecture) in 2012?" and the answer is "9,101,505',
                A,
            ),
            "flan-t5-xxl": ("I don't know", N),
            "Mixtral-8x7B-Instruct-v0.1": ("I don't know.", N),
            "llama-2-70b-chat": (
                "\nYes, answer is present in context [1].\n\nThe answer to the question is 9,101,505.",
                A,
            ),
            "gpt-3.5-turbo-azure": ("I don't know.", N),
            "Mistral-7B-Instruct-v0.2": (
                "I don't know. The provided contexts do not contain information about the population of "
                "Kanagawa Prefecture in the year 2012.",
                N,
            ),
            "Orca-2-7b": ("\nQuestion: 日本神奈川县" + "县" * 40, I),
            "Orca-2-13b": ("Yes, answer is present", A),
            "aya-101": ("Yes, answer is present", A),
        },
    ),
]

# hallucination_evaluation.py's TSV cells for the two files above, worked out by hand from the labels:
# ConfusionMetric divides by every reply (Invalid included) and, on the non-relevant subset, computes
# the hallucination rate only for a model that said "I don't know" at least once (else 0.0); on the
# relevant subset the error rate only for a model that said "Yes, answer is present" at least once.
EXPECTED_ROWS = {
    ("non_relevant", "gpt-4-azure"): [20.0, 80.0, 0.0],  # A A A A N
    ("non_relevant", "llama-2-13b-chat"): [0.0, 0.0, 40.0],  # I A A I A: never N, rate not computed
    # A A A A A: a 100 % hallucination rate, reported as 0
    ("non_relevant", "llama-2-70b-chat"): [0.0, 0.0, 0.0],
    ("non_relevant", "Mixtral-8x7B-Instruct-v0.1"): [40.0, 60.0, 0.0],  # A N A A N
    ("non_relevant", "Mistral-7B-Instruct-v0.2"): [40.0, 20.0, 40.0],  # A N I I N
    ("non_relevant", "aya-101"): [0.0, 0.0, 20.0],  # A I A A A
    ("non_relevant", "Orca-2-7b"): [0.0, 0.0, 20.0],  # A A A A I
    ("non_relevant", "flan-t5-xxl"): [20.0, 80.0, 0.0],  # A A A A N
    ("relevant", "gpt-4-azure"): [100.0, 0.0, 0.0],  # A A
    ("relevant", "llama-2-7b-chat"): [50.0, 0.0, 50.0],  # I A
    ("relevant", "llama-2-70b-chat"): [50.0, 0.0, 50.0],  # I A
    ("relevant", "Mistral-7B-Instruct-v0.2"): [0.0, 0.0, 0.0],  # N N: 100 % error, reported 0
    ("relevant", "aya-101"): [0.0, 0.0, 100.0],  # I I
}
