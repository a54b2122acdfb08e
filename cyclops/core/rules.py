"""What patterns.toml becomes: immutable, compiled detection data (see :mod:`.patterns`, which
parses the file into these)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from .checks import Check
from .controls_config import Controls
from .regex import Glob, GlobSet, PathGlobSet, SafeRegex, tool_names
from .types import Action, Capability, FlowClass, Label

__all__ = [
    "ArgumentRule",
    "EgressRules",
    "FlowPolicy",
    "HighValueRule",
    "LeakSettings",
    "Limits",
    "Patterns",
    "PoisoningRules",
    "ProvenanceSettings",
    "PublicListing",
    "Role",
    "SecretRule",
]


@dataclass(frozen=True)
class PublicListing:
    """Which of a role's results say whether its containers are public, and how (see
    :mod:`.containers`)."""

    listed_by: GlobSet
    """Tools whose results the server writes from its own records (a repository search)."""
    name_fields: tuple[str, ...]
    """Fields of an object there that name a container (``full_name``: ``owner/name``)."""
    private_field: str | None
    """A field that is false for a public container (``private``)."""
    visibility_field: str | None
    """A field that is ``public`` for a public container (``visibility``)."""
    reads: GlobSet
    """Tools whose private label is the container's content (``get_file_contents``)."""


@dataclass(frozen=True)
class Role:
    name: str
    servers: GlobSet
    tools: tuple[tuple[Glob, frozenset[Label]], ...]
    signatures: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Tool names that identify a server of this role, whatever it is called."""
    container_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Arguments that together name where a call reads or writes (a repository, a channel):
    private data written back where it was read reaches no one it had not reached."""
    hosts: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Hosts the role's service itself serves from: a link to one in a message written back
    into a container (a file of the repository) sends what it carries nowhere else."""
    sender_fields: tuple[str, ...] = ()
    recipient_fields: tuple[str, ...] = ()
    """Header fields (``From:``, ``"to":``) of a result that is one message: the addresses on
    them are its audience, and what it says sent back to them only is no leak."""
    checkout_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Container keys whose value names the directory a local copy of the container lives in
    (a repository's checkout): a local file under such a directory, written into the
    container, goes back where it came from."""
    public: PublicListing | None = None
    """How results tell which of its containers are public (a public repository's files are
    no private data)."""
    requester_fields: tuple[str, ...] = ()
    """Fields of a result that is one ticket naming who asked (``"requester"``): a comment
    written into that ticket (its container) reaches them, and what is theirs sent there only
    (a record whose audience they are) is no leak."""
    fresh_tools: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Tools whose results are made new for the call (a password manager's generator): no
    one's private data yet, whatever label the role's tool globs give its other tools."""
    page_actions: GlobSet = field(default_factory=lambda: GlobSet(()))
    """A browser's tools that act on the page it has open (type, fill, click, upload)."""
    admin_pages: tuple[SafeRegex, ...] = ()
    """URLs of pages where acting changes who can get in or where data goes (webhooks,
    members, API keys, mail forwarding, payees): a ``page_actions`` call on one is
    privileged (see :mod:`.pages`)."""

    @property
    def every_server(self) -> bool:
        """Whether the role is every server's (``servers = ["*"]``): it says nothing of what a
        server is."""
        return "*" in self.servers.patterns


@dataclass(frozen=True)
class ArgumentRule:
    id: str
    keys: GlobSet
    tools: GlobSet
    path_globs: PathGlobSet
    labels: frozenset[Label]
    word_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Keys whose value is a command line: each word is tried as a path."""
    value_regexes: tuple[SafeRegex, ...] = ()
    """Regexes over the whole values under ``keys``, at any depth below one (a SQL statement
    that writes rows; an address in an Outlook rule's ``forwardTo[0].emailAddress``)."""
    locator_regexes: tuple[SafeRegex, ...] = ()
    """Regexes over the values under ``keys`` of a call the rule labels: what they match (their
    ``value`` group) says which records the call changes, not what it writes (the WHERE clause
    of a SQL UPDATE). Private data there is no leak; untrusted content there chose them."""
    except_globs: PathGlobSet = field(default_factory=lambda: PathGlobSet(()))
    """Paths the rule leaves out though ``path_globs`` match them (a public key among the
    keys of ``~/.ssh``)."""
    instruction_only: bool = False
    """A privileged call the rule matches is excessive agency only after content that
    addressed the agent, as the policy's ``instruction_only_tools`` (a SQL statement that only
    reads: looking up the order a ticket names is ordinary)."""
    spares_own_service: bool = False
    """The rule does not label a call whose every host is the service that the names its
    value regexes mark (``(?P<value>...)``) say: ``$OPENAI_API_KEY`` sent to api.openai.com."""
    except_regexes: tuple[SafeRegex, ...] = ()
    """A value under ``keys`` that one of these matches does not count for ``value_regexes``
    or ``command_regexes`` (a "SELECT" that writes: ``SELECT ... INTO``, ``WITH ... DELETE``)."""
    command_regexes: tuple[SafeRegex, ...] = ()
    """The rule matches a call whose every value under ``keys`` is a command line whose every
    simple command (see :mod:`.commandline`) one of these matches whole (``cd app && npm
    test``); such a rule judges nothing else."""


@dataclass(frozen=True)
class EgressRules:
    allow_hosts: GlobSet
    url_keys: GlobSet
    url_labels: frozenset[Label]
    destination_keys: GlobSet
    sender_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Keys whose values, at any depth, say who sends (``sender.email``, ``from``): no
    destination, whatever key they sit under."""
    network_commands: frozenset[str] = frozenset()
    """Programs whose command lines name a remote host without a URL (``scp``, ``nc``)."""
    lookup_commands: frozenset[str] = frozenset()
    """Programs that look up the names they are given (``ping``, ``dig``)."""
    web_commands: frozenset[str] = frozenset()
    """Programs whose operands are URLs, with or without a scheme (``curl``, ``wget``)."""
    service_commands: Mapping[str, str] = field(default_factory=dict)
    """Clients of one service, by program: the host they talk to whatever their operands
    (``gh`` to ``github.com``)."""
    resource_schemes: frozenset[str] = frozenset({"http", "https"})
    """The URI schemes with which a resource read reaches the URI's host."""
    unknown_server_secrets: bool = False
    """A call to a server no role names, whose arguments carry a value a secret rule
    recognises, is egress: the key leaves for a third party cyclops knows nothing of."""


@dataclass(frozen=True)
class SecretRule:
    id: str
    description: str
    regex: SafeRegex
    keywords: tuple[str, ...]
    min_entropy: float = 0.0
    check: Check | None = None
    hosts: GlobSet | None = None
    """The hosts its secrets are for: presented there as a credential, one authenticates (see
    :mod:`.credentials`)."""
    services: frozenset[str] = frozenset()
    """Lower-case words that name its service in an environment variable's name (``gemini``
    in ``GEMINI_API_KEY``): a key named so is used where it belongs at :attr:`hosts`."""


@dataclass(frozen=True)
class HighValueRule:
    id: str
    regex: SafeRegex
    check: Check | None = None
    steers: bool = False
    """Its values say where to send (a phone number): content that addressed the agent and
    holds one chose a destination that carries it, however either writes it."""
    min_piece: int = 0
    """A run of at least this many of a value's digits, sent on its own, is a piece of it (a
    card number sent in halves); 0: only the whole value links."""


@dataclass(frozen=True)
class ProvenanceSettings:
    kgram: int = 6
    min_fragment: int = 8
    secret_entropy: float = 3.0
    min_token_length: int = 8
    min_token_entropy: float = 2.5
    shingle_words: int = 5
    shingle_window: int = 4
    min_uncommon_words: int = 2
    max_sources_per_fingerprint: int = 24
    max_private_sources: int = 3
    opaque_id_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    opaque_ids: tuple[SafeRegex, ...] = ()
    opaque_id: SafeRegex | None = None
    """Every opaque-id pattern in one regex: one pass per token."""
    high_value: tuple[HighValueRule, ...] = ()
    private_value_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """JSON keys of private results whose values link whole (a card number, an address)."""
    min_private_value: int = 8
    """Letters and digits such a value needs to link."""
    quantity_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Argument keys whose plain numbers say how much (an amount, a price): copied from
    untrusted content into a privileged call, they do not say whom or what it acts on."""
    condition_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Argument keys whose object says which items a privileged rule applies to (a mail
    filter's ``criteria``): copied from untrusted content, they do not say what it does."""
    labelled_values: tuple[SafeRegex, ...] = ()
    """Regexes that find a value of a private text by the label before it in prose (``Passport
    YA4417382``), marked ``(?P<value>...)``: it links whole, as a private-value key's value."""
    write_tools: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Tools whose calls leave their text arguments in the local files they name."""
    push_tools: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Egress tools whose calls publish the local directory they name (a checkout)."""
    stage_tools: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Tools whose calls put the files they name into what a push of their directory sends."""
    site_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """JSON keys of a private record naming the site its login is for (see :mod:`.logins`)."""
    credential_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """JSON keys of such a record whose values are typed in to log in (username, password)."""
    shared_hosts: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Hosts where anyone publishes pages: only a record that names one itself is for it."""

    @cached_property
    def steering_values(self) -> tuple[HighValueRule, ...]:
        """The high-value rules whose values say where to send."""
        return tuple(rule for rule in self.high_value if rule.steers)


@dataclass(frozen=True)
class LeakSettings:
    min_call_bytes: int = 12
    drip_bytes: int = 16
    min_continuation: int = 2
    """Letters and digits a piece continuing what a destination received needs (0: off)."""
    min_id_length: int = 4
    """Letters and digits a value under an opaque-id key of a private result needs to count
    when a leak of that result carries it (0: such values never count)."""


@dataclass(frozen=True)
class FlowPolicy:
    action: Action
    require_data_edges: bool = False
    require_untrusted: bool = True
    """For secret egress: only when untrusted content reached the session."""
    instructions_as_data: bool = True
    """Where data edges are required: content that addressed the agent (an untrusted marker)
    entering its context counts as they do."""
    instruction_only_tools: GlobSet = field(default_factory=lambda: GlobSet(()))
    """For excessive agency: tools whose arguments come from what the agent read when the user
    asks for them (a hotel picked from its reviews): only an injected instruction counts."""
    instruction_only_sources: GlobSet = field(default_factory=lambda: GlobSet(()))
    """For excessive agency: tools whose untrusted results the user chose to act on (what they
    copied, what their screen showed): pieces of them count only if they addressed the agent."""

    def chosen_by_user(self, capability: Capability | None, verbs: frozenset[str]) -> bool:
        """Whether ``capability`` is one of ``instruction_only_sources``."""
        if capability is None or not self.instruction_only_sources:
            return False
        names = tool_names(capability.server, capability.tool, verbs)
        return any(map(self.instruction_only_sources.matches_name, names))


@dataclass(frozen=True)
class Limits:
    max_calls: int = 100_000
    max_fingerprints: int = 2_000_000
    max_result_chars: int = 1_048_576


@dataclass(frozen=True)
class PoisoningRules:
    """``[poisoning]``: what in a tool description, with no marker words, makes its server
    hostile (see :mod:`.poisoning`)."""

    markers: tuple[SafeRegex, ...] = ()
    """Enough on their own (a script from the web piped into a shell)."""
    name_verbs: frozenset[str] = frozenset()
    """Besides ``[tools] verbs``, words that start a tool's name (``drop_table``)."""
    not_services: frozenset[str] = frozenset()
    """First words of a name that name no service (``dry_run``, ``auto_merge``)."""
    parameter_words: frozenset[str] = frozenset()
    """Last words of a parameter's name, not a tool's (``start_time``, ``merge_method``)."""
    calls_before: SafeRegex | None = None
    """What, just before a name, calls it (``call``, ``via``): camelCase names need it."""
    names_before: SafeRegex | None = None
    """What, just before a name, names a tool less surely (``when``, ``with``)."""
    calls_after: SafeRegex | None = None
    """What, just after a name, calls it (``tool``, ``is called``)."""
    destinations: tuple[SafeRegex, ...] = ()
    """Literal destinations: addresses, URLs, phone numbers, accounts, channels, repositories."""
    examples: SafeRegex | None = None
    """A destination that matches this is an example (``alice@example.com``)."""
    example_lead: SafeRegex | None = None
    """What, just before a destination, makes it an example (``e.g.``)."""
    harms: tuple[SafeRegex, ...] = ()
    """What makes naming a foreign tool harmful besides a destination: the user overridden, an
    action pressed on everything, an output handed over, concealment."""
    destructive_verbs: frozenset[str] = frozenset()
    """Verbs of tools that destroy, grant, merge or move money (``delete_file``)."""
    pressing: tuple[SafeRegex, ...] = ()
    """Harm beside a destructive foreign tool: on everything, first, at once, without review."""
    secret_tools: SafeRegex | None = None
    """A foreign tool whose name matches reads secrets (``list_secrets``): asking for what it
    returns as an argument is harm."""
    private_data: tuple[SafeRegex, ...] = ()
    """Private data (a key's path, a token, the conversation): harm beside a foreign tool, and
    asked for as one of the tool's own arguments."""
    argument_requests: tuple[SafeRegex, ...] = ()
    """A value asked for as one of the tool's own arguments, the argument's name marked
    ``(?P<argument>...)``."""
    secret_arguments: SafeRegex | None = None
    """An argument whose name says it takes a secret (``api_key``): asking for one is no harm."""


@dataclass(frozen=True)
class Patterns:
    source: str
    sha256: str
    roles: tuple[Role, ...]
    arguments: tuple[ArgumentRule, ...]
    egress: EgressRules
    untrusted_markers: tuple[SafeRegex, ...]
    secrets: tuple[SecretRule, ...]
    provenance: ProvenanceSettings
    leak: LeakSettings
    flows: Mapping[FlowClass, FlowPolicy] = field(default_factory=dict)
    limits: Limits = Limits()
    controls: Controls = field(default_factory=Controls)
    # words that start what a tool does (``send`` in ``GmailSendEmail``); see ``regex.tool_names``
    tool_verbs: frozenset[str] = frozenset()
    poisoning_markers: tuple[SafeRegex, ...] = ()
    """What a tool description that instructs the agent must also hold to make its server
    hostile: a secret or a file to read, concealment from the user, another tool to divert."""
    file_requests: tuple[SafeRegex, ...] = ()
    """Descriptions that ask the agent for what a private file holds: an instruction and a
    poisoning at once, enough to make a server hostile."""
    poisoning: PoisoningRules = field(default_factory=PoisoningRules)
    """How a description turns the agent against the user with no marker words."""
    address_markers: tuple[SafeRegex, ...] = ()
    """Ways content addresses the agent that count in results only ("Hey assistant, run ..."): a
    tool's description is written for the agent, so it may address it (only
    ``untrusted_markers`` count there)."""
    request_markers: tuple[SafeRegex, ...] = ()
    """Requests in untrusted content ("Please unlock my front door"), each marking the verb
    asked for with a group named ``verb``."""
    verb_groups: tuple[frozenset[str], ...] = ()
    """Verbs that ask for the same kind of action (``sell`` and ``place`` an order): a request
    asks for a tool's action when its verb is the tool's verb or shares a group with it."""
    sensitive_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Keys whose value in a result's JSON makes it private data, whatever its tool (``ssn``,
    ``card_number``, ``password``)."""
    untrusted_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Keys whose value in a result's JSON was written by someone outside (a donor's note on a
    payment, a buyer's note on an order): the result is untrusted content, whatever its tool."""
    person_message_keys: GlobSet = field(default_factory=lambda: GlobSet(()))
    """Keys whose value, in a JSON object that also holds an e-mail address as a value of its
    own, is what that person wrote (a web form's `message` on a lead or a contact): untrusted
    content, whatever its tool."""
    insiders: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Keys whose value says how a text's author stands to where it was written (GitHub's
    ``author_association``), with the values that make the author an insider (``OWNER``,
    ``MEMBER``, ``COLLABORATOR``): a JSON result whose every author is one is no untrusted
    content."""
    untrusted_boundaries: tuple[SafeRegex, ...] = ()
    """Text by which a server declares what it returns untrusted (Supabase's
    ``<untrusted-data-…>`` around rows): the result is untrusted content, addressing no one."""
    public_texts: tuple[SafeRegex, ...] = ()
    """Whole texts made to be given away (an SSH public key, a certificate): a result that is
    nothing else is no private data, whatever tool read it."""
    private_pages: tuple[SafeRegex, ...] = ()
    """URLs of pages that show the signed-in user's own data (an account's addresses, a bank's
    statements, a webmail inbox): a browser's result that says it is on one is private data."""

    def role(self, name: str) -> Role | None:
        return next((role for role in self.roles if role.name == name), None)
