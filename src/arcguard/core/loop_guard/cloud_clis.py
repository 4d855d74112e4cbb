"""Which commands of the cloud CLIs (`aws`, `gcloud`, `az`) only read.

They name their action among their first words: `aws` as the word after the service (`aws sts
get-caller-identity`, `aws s3 ls`), whose first part is its verb; `gcloud` and `az` as a word of
their own after the groups (`gcloud compute instances list`, `az vm show`). A resource's name is
no action: `az vm deallocate -n show-vm` and `gcloud compute ssh search-indexer` act. A command
is read-only when its action reads and none of its first words acts (`sqs receive-message`
takes the message); `aws s3api get-object` and `get-credentials` save a file, so they act.
"""

from __future__ import annotations


CLIS = frozenset({"aws", "gcloud", "az"})
AWS_READ_VERBS = frozenset(
    {"get", "list", "describe", "ls", "tail", "head", "lookup", "search", "query"}
)
AWS_SAVES = frozenset({"get-object", "get-object-torrent"})
ACTIONS_THAT_READ = frozenset({"list", "describe", "show", "get", "ls"})
ACT_VERBS = frozenset(
    "create delete update put set start stop run deploy apply rm cp mv sync remove add reboot "  # noqa: SIM905
    "terminate invoke send publish receive purge restore modify import attach detach enable "
    "disable reset rotate register deregister upload download login logout submit cancel "
    "execute deallocate suspend resume resize ssh scp".split()
)
ACTION_WORDS = 4  # the leading words among which a cloud CLI names its action
# Options, before or after the action, that take the next word.
VALUED_OPTIONS = frozenset(
    "--region --output --query --endpoint-url --project --format --resource-group -g "  # noqa: SIM905
    "--subscription --zone --name -n --location -l --profile --cluster".split()
)


def reads(program: str, args: list[str]) -> bool:
    """The command (`program` and its `args`) only reads."""
    words = _positionals(args)
    if ACT_VERBS.intersection(word.partition("-")[0] for word in words):
        return False
    if program == "aws":
        action = words[1] if len(words) > 1 else ""
        return action.partition("-")[0] in AWS_READ_VERBS and action not in AWS_SAVES
    return bool(ACTIONS_THAT_READ.intersection(words))


def _positionals(args: list[str]) -> list[str]:
    """The first `ACTION_WORDS` words that are neither options nor their values."""
    found: list[str] = []
    after_option = False
    for arg in args:
        if len(found) == ACTION_WORDS:
            break
        if not arg.startswith("-") and not after_option:
            found.append(arg)
        after_option = arg in VALUED_OPTIONS
    return found
