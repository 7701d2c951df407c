//go:build !headless

package ui

import (
	"errors"
	"time"

	"capabilities.sh/capabilities/hub/upstream"
)

// Hub is everything the UI needs from the hub. The UI never reaches the store
// or MCP; the hub adapts itself to this interface.
//
// Methods may block (they read the store) and are never called on the Fyne
// main goroutine: the UI calls them from its own goroutine and hands the
// results to widgets with fyne.Do. They must be safe for concurrent use.
type Hub interface {
	// Pending returns the calls waiting for a decision, in any order.
	Pending() ([]Approval, error)
	// Decide records a decision for a pending call. It returns an error when
	// the call was already decided elsewhere or has expired.
	Decide(id string, d Decision) error
	// Subscribe calls fn for every hub event until cancel is called. fn runs
	// on hub goroutines and must not block; cancel may be called more than once.
	Subscribe(fn func(Event)) (cancel func())
	// Status returns the sources, whether the hub is paused and how many
	// calls are pending.
	Status() (Status, error)
	// Runs returns the most recent runs, newest first, at most limit;
	// their Calls say only the address, outcome and duration of each.
	Runs(limit int) ([]RunSummary, error)
	// RunCalls returns every call of one run with its arguments, result
	// and decision, as the window shows the run picked.
	RunCalls(runID string) ([]CallSummary, error)
	// History returns the most recent decisions, newest first, at most limit.
	History(limit int) ([]DecisionRecord, error)
	// SetPaused pauses (no new runs start, calls wait) or resumes the hub.
	SetPaused(paused bool) error
	// Policies returns the policy rules in the order the hub applies them.
	Policies() ([]PolicyRule, error)
	// SetPolicy sets the mode (PolicyAllow, PolicyAsk or PolicyDeny) of an
	// address ("github.createIssue") or glob ("github.*").
	SetPolicy(pattern, mode string) error
	// RemovePolicy removes the rules for a pattern: the config.json rule
	// and any decision remembered for it.
	RemovePolicy(pattern string) error
	// SetSecret stores the secret of a source's connection in the keychain.
	SetSecret(source, connection, secret string) error
	// SecretPlace says what the secret of a source's connection fills
	// ("header X-Api-Key", "environment variable GITHUB_TOKEN"), or that
	// an OAuth sign-in provides it; an error when the hub cannot tell,
	// *NoSecretPlace when the person can say it.
	SecretPlace(source, connection string) (where string, signIn bool, err error)
	// SetSecretIn stores a secret as SetSecret does, in the place the
	// person names where the hub cannot tell (NoSecretPlace): the
	// environment variable name of a stdio source, or the header name of
	// an HTTP source, after "Bearer " when bearer.
	SetSecretIn(source, connection, name string, bearer bool, secret string) error
	// ChangedTools returns upstream tools whose definition changed since it
	// was accepted, and sources' skills whose entry did (skill:...); the hub
	// asks before calling such a tool and tells the model of such a skill.
	ChangedTools() ([]ToolChange, error)
	// ChangedDefinition returns a changed tool's definition as it was
	// accepted ("" when the hub did not keep it) and as it is now, JSON,
	// with the current one's hash.
	ChangedDefinition(address string) (was, is, hash string, err error)
	// AcceptTools accepts the definitions shown of changed tools, each
	// only while it is still the tool's (by Hash): one that changed again
	// since keeps asking, and the error names it.
	AcceptTools(shown []ToolChange) error
	// Login signs an OAuth connection of a source in: it opens the
	// authorization page and blocks until the person finished, failed or
	// the hub stopped. The UI calls it on a goroutine of its own. When
	// showURL is set it gets the page's address (on a hub goroutine) as
	// the browser is asked to open it, for the person to copy when no
	// browser opens.
	Login(source, connection string, showURL func(url string)) error
	// Logout signs an OAuth connection out: its server revokes the tokens
	// where it offers that, and they leave the keychain.
	Logout(source, connection string) error
	// SetOAuthClient makes a connection sign in as a client registered
	// with the authorization server beforehand: its id and the port of
	// its redirect URI go to the config, its secret ("" for none) to the
	// keychain. A Login that failed with ErrNeedsClient asks for it.
	SetOAuthClient(source, connection, clientID, secret string, redirectPort int) error
	// AddSource adds a source to config.json, as 'capabilities source add'
	// does, and the hub applies it.
	AddSource(spec SourceSpec) error
	// RemoveSource removes a source with its connections' secrets.
	RemoveSource(name string) error
	// RestartSource starts a source anew and lists its tools again.
	RestartSource(name string) error
	// SetSourceEnabled enables or disables a source in config.json.
	SetSourceEnabled(name string, enabled bool) error
	// SetBaseURL sets the base URL an OpenAPI source's calls go to, over
	// its document's server ("" goes back to the document's).
	SetBaseURL(source, baseURL string) error
	// AllowOrigin lets an OpenAPI source serve the operations its
	// document puts on another origin (SourceStatus.Elsewhere), their
	// calls carrying its credentials there.
	AllowOrigin(source, origin string) error
	// RemoveOrigin stops serving them (SourceStatus.Origins).
	RemoveOrigin(source, origin string) error
	// SetDefaultConnection makes a connection the one a source's calls
	// use when they name none; RemoveConnection removes one with its
	// secrets and sign-in (refused while a profile pins it).
	SetDefaultConnection(source, connection string) error
	RemoveConnection(source, connection string) error
	// AddProfile adds a profile to config.json, as 'capabilities profile
	// add' does; RemoveProfile removes one.
	AddProfile(spec ProfileSpec) error
	RemoveProfile(name string) error
	// SetSkillFolder adds a folder of skills to config.json (an absolute
	// path or one starting with ~/), or with add false removes one.
	SetSkillFolder(dir string, add bool) error
	// ConfigDir is the folder holding config.json (CAPABILITIES_HOME).
	ConfigDir() string
	// LogFile is the hub's log file.
	LogFile() string
}

// NoSecretPlace is SecretPlace's error when the connection references no
// secret and the source is an MCP server: where its secret goes is the
// person's to say (SetSecretIn), an environment variable (Env: a stdio
// source) or a header.
type NoSecretPlace struct {
	Env     bool
	Message string
}

func (e *NoSecretPlace) Error() string { return e.Message }

// The errors the Hub methods return reach the person: the window shows
// them where the data would be, and the tray's status line says the hub
// has a problem. An empty list is never shown for a failed read.

// Approval is a tool call waiting for a person's decision.
type Approval struct {
	ID    string // approval id, the key for Decide
	RunID string // the run that made the call
	Seq   int    // the call's sequence number in the run's journal

	Address string // "github.createIssue"
	Title   string // the tool's human title, may be empty

	Connection        string // the connection (credential set) the call uses
	DefaultConnection bool   // Connection is the source's default

	Reason  string // why it asks: "policy ask", "new tool", "changed tool definition"
	Client  string // the MCP client that runs the code, "claude-code 1.2"
	Preview string // the arguments as JSON, already redacted by the hub

	Description string   // the tool's description
	Annotations []string // the tool's annotations in words: "read-only", "destructive", ...
	Code        string   // the run's code, in which the call waits

	// NeedsSecret: the call waits for the secret of Connection of Source,
	// not for a decision; the person enters it (SetSecret) and the run
	// continues when the model resumes it.
	NeedsSecret bool
	Source      string
	// SecretWhere says what the secret fills ("header X-Api-Key",
	// "environment variable GITHUB_TOKEN"), when the hub can tell;
	// SignIn: an OAuth sign-in provides it, there is no secret to enter;
	// OffersSignIn: a REST API's sign-in provides it as well as a secret.
	SecretWhere  string
	SignIn       bool
	OffersSignIn bool

	// Method and URL are an OpenAPI operation's request ("DELETE",
	// "https://api.example.com/items/{id}"); empty for an MCP tool.
	// Deprecated: its API marks the operation deprecated.
	Method, URL string
	Deprecated  bool

	// Change says what changed in the tool's definition since the person
	// accepted it ("description changed"); DefinitionWas and DefinitionIs
	// are the accepted and the current definition as JSON, when the hub
	// kept the accepted one.
	Change                      string
	DefinitionWas, DefinitionIs string

	// Plan is set when the call is one of its run's plan: the calls that
	// need consent, collected before the first of them runs and decided
	// together. Seq is then the call's number in the plan's arguments
	// ("<result of call 1>.entities[0].name").
	Plan *PlanInfo

	Created time.Time
	Expires time.Time // zero: never
}

// PlanInfo is what a call of a run's plan says about the plan.
type PlanInfo struct {
	Missing bool     // the call's connection needs a secret or a sign-in first
	Stop    string   // where planning stopped; "" when the code returned
	Denied  []string // the calls policy denied while planning, which never run: "memory.deleteEntities (#4)"
}

// Decision is a person's answer to an Approval.
type Decision string

// The four decisions. The "always" ones also write a policy rule.
const (
	AllowOnce   Decision = "allow_once"
	AllowAlways Decision = "allow_always"
	Deny        Decision = "deny"
	DenyAlways  Decision = "deny_always"
)

// Event tells the UI that something changed in the hub. The UI reloads what it
// shows; ID names the approval or run concerned, when there is one.
type Event struct {
	Kind string // one of the Event* constants
	ID   string
}

// Event kinds.
const (
	EventApprovalAdded   = "approval_added"   // ID: the approval
	EventApprovalDecided = "approval_decided" // ID: the approval, decided anywhere
	EventApprovalExpired = "approval_expired" // ID: the approval
	EventRun             = "run"              // ID: the run that started, paused or ended
	EventSource          = "source"           // a source went up or down, or its tools changed
	EventPaused          = "paused"           // the hub was paused or resumed
	EventClients         = "clients"          // an MCP client connected or went (Options.WatchConnected)
)

// Status is the state of the hub at one moment.
type Status struct {
	Sources []SourceStatus
	Paused  bool
	Pending int // calls waiting for a decision
	Tools   int // tools in the catalog
	// ImportOffer is how many servers found in the person's clients a first
	// run offers to import, while nobody has decided; 0: no offer.
	ImportOffer int
	// Profiles are the names of config.json's profiles, sorted, and
	// ProfileList the same profiles with what each shows.
	Profiles    []string
	ProfileList []ProfileSummary
	// Skills are the skills search shows, in address order, and
	// SkippedSkills the folders with a SKILL.md that are not used, with
	// why. SkillsHome is the home's own folder of skills, read first;
	// SkillFolders are the folders config.json adds after it.
	Skills        []SkillInfo
	SkippedSkills []SkippedSkill
	SkillsHome    string
	SkillFolders  []string
}

// ProfileSummary is one profile as the Clients tab lists it.
type ProfileSummary struct {
	Name     string
	Mode     string   // "code" or "direct"
	Sources  []string // each as source, or source:connection where a connection is pinned
	ReadOnly bool
	Rules    []string // target=mode, the rules that tighten the person's
}

// ProfileSpec is a profile to add from the window: its sources, each on
// its default connection, in code mode unless Direct.
type ProfileSpec struct {
	Name     string
	Sources  []string
	Direct   bool
	ReadOnly bool
	// Connections pins, by source, the one connection the profile's
	// clients use; the source's others are refused to them.
	Connections map[string]string
	// Rules are the profile's own policy rules, target to mode (allow,
	// ask or deny): they apply after the person's and only tighten them.
	Rules map[string]string
}

// SkillInfo is one skill search shows.
type SkillInfo struct {
	Address     string // skill:name, or skill:namespace.path for a source's
	Description string
	From        string // the folder of a person's skill, or the source that serves it
	Changed     bool   // a source's skill changed since it was accepted
	Change      string // what changed, when Changed
}

// SkippedSkill is a folder with a SKILL.md the hub does not use.
type SkippedSkill struct {
	Folder  string
	Problem string
}

// SourceSpec is a source to add: exactly one of Command (a stdio server's
// command and arguments), URL (a streamable HTTP server) or OpenAPI (a
// REST API's document, a file or a URL).
type SourceSpec struct {
	Name    string
	Command []string
	URL     string
	OpenAPI string
	// BaseURL is an OpenAPI source's API, over its document's server
	// (a document that names none, or a placeholder such as
	// https://your-domain.atlassian.net); "" keeps the document's.
	BaseURL string
	// Env is a program's environment, Headers an HTTP server's: what looks
	// like a secret in them moves to the keychain, as an import's does.
	Env, Headers map[string]string
}

// Source states: the hub's own (upstream.SourceStateKind), so the tray says
// what `hub status`, doctor and the model say.
const (
	SourceIdle        = string(upstream.SourceIdle)
	SourceUp          = string(upstream.SourceUp)
	SourceDown        = string(upstream.SourceDown)
	SourceStarting    = string(upstream.SourceStarting)
	SourceNeedsSecret = string(upstream.SourceNeedsSecret)
	SourceDisabled    = string(upstream.SourceDisabled)
)

// SourceStatus is one upstream MCP server.
type SourceStatus struct {
	Name        string
	State       string // one of the Source constants
	Error       string // why it is down or needs a secret, when it is
	Tools       int    // tools it currently offers
	Connections []ConnectionStatus
	SignIns     []SignInStatus // the OAuth connections, in config order
	Disabled    bool           // config.json keeps it without serving it
	// Stderr is the last lines its latest session wrote to stderr,
	// scrubbed; a stdio source's only.
	Stderr []string
	// Waiting is how many of an OpenAPI source's operations wait for
	// credentials its default connection does not give; Need is what the
	// most of them need, and the command that gives it.
	Waiting int
	Need    string
	// Warnings say what its last listing skipped or cut short (an
	// operation whose server is not the API's, catalog limits).
	Warnings []string
	// OpenAPI marks a REST API's source; API is where its calls go (its
	// base URL, else its document's server; "" when neither), BaseURL the
	// base URL config.json gives it.
	OpenAPI      bool
	API, BaseURL string
	// Origins are the other origins an OpenAPI source serves the
	// operations on, with its credentials (config.json's "origins").
	Origins []string
	// Elsewhere are the other origins, than its API's, an OpenAPI
	// source's document puts operations on that it leaves out;
	// AllowOrigin serves them.
	Elsewhere []string
	// ToolList is the tools it offers now, by address.
	ToolList []SourceTool
}

// SourceTool is one tool of a source.
type SourceTool struct {
	Address    string
	Title      string
	Mode       string // what policy does with a call now: PolicyAllow, PolicyAsk or PolicyDeny
	Deprecated bool   // its API marks the operation deprecated
}

// SignInStatus is the sign-in state of one OAuth connection.
type SignInStatus struct {
	Connection string
	SignedIn   bool
	Summary    string // as the hub words it: "signed in until …", "needs sign-in: …"
	SigningIn  bool   // a sign-in page is open and the hub waits for the person
}

// ConnectionStatus is one named credential set of a source.
type ConnectionStatus struct {
	Name      string
	Default   bool
	HasSecret bool // a secret for it is in the keychain
}

// RunSummary is one execute run, with what the UI shows of it.
type RunSummary struct {
	ID       string
	Status   string // as the hub words it: "running", "waiting", "ok", "error", ...
	Client   string
	Started  time.Time
	Code     string        // the code as run, after the forgiving rewrites
	Calls    []CallSummary // in journal order; Hub.RunCalls has their details
	Envelope string        // the result envelope as JSON; empty while running
	Logs     []string
}

// CallSummary is one tool call of a run.
type CallSummary struct {
	Seq      int
	Address  string
	OK       bool
	Duration time.Duration
	Error    string // when not OK

	Connection string
	State      string // the journal's: ok, error, issued, pending, read; "" when unknown
	// Args are the arguments as the call's approval showed them, or as
	// its journal kept them, redacted; "" when they were not recorded (a
	// call journaled before the hub kept them). ArgsCut says the journal
	// kept only their start.
	Args    string
	ArgsCut bool
	// Result is the result, error or handle as journaled, scrubbed; Cut
	// says the hub cut it for the window.
	Result string
	Cut    bool
	// Decision is a person's answer ("allow", "deny") when the call
	// asked; "" when policy let it through or nobody answered yet.
	// Channel and Actor say where and who; Always that it was remembered.
	Decision, Channel, Actor string
	Always                   bool
	Reason                   string // why it asked
}

// ConnectedClient is one MCP client session connected to the hub now.
type ConnectedClient struct {
	Name, Version string
	Profile       string // "" for the whole hub
	Mode          string // "code" or "direct"
	Since         time.Time
}

// DecisionRecord is one entry of the approval audit trail.
type DecisionRecord struct {
	ApprovalID string
	RunID      string
	Address    string
	Connection string
	Decision   Decision
	Channel    string // who decided: "dialog", "client", "cli", "policy", "expired"
	At         time.Time
}

// Policy modes.
const (
	PolicyAllow = "allow"
	PolicyAsk   = "ask"
	PolicyDeny  = "deny"
)

// PolicyRule maps a tool address or glob to a mode.
type PolicyRule struct {
	Pattern string // "github.createIssue", "github.*"
	Mode    string // PolicyAllow, PolicyAsk or PolicyDeny
	From    string // where the rule comes from: "config", "cli", "window", "dialog", "client"
	Scope   string // where it holds: "every connection", "connection work"
	Warning string // set when the rule matches no tool now
}

// ToolChange is an upstream tool whose definition differs from the one
// accepted before.
type ToolChange struct {
	Address string
	Summary string // what changed, in words: "description changed; new required argument repo"
	Hash    string // the current definition's
	Seen    time.Time
}

// Options configures Run. The zero value works.
type Options struct {
	// Logf logs a line; nil logs nothing.
	Logf func(format string, args ...any)
	// Autostart turns start at login on or off; nil hides the menu item.
	Autostart func(on bool) error
	// AutostartEnabled reports whether start at login is on.
	AutostartEnabled func() bool
	// OnQuit runs on the Fyne main goroutine when the person picks Quit,
	// before the app stops. It should ask the hub to stop and return.
	OnQuit func()
	// Show asks for the main window: each value received opens it, on the
	// tab of that name ("" keeps the current tab). capabilities hub open
	// sends on it. Nil: only the tray opens the window.
	Show <-chan string
	// Connect connects an MCP client (one of Clients) to the hub, or to
	// one of its profiles ("" for the whole hub), writing its config, and
	// says what it did. Nil: the window only shows the commands that do it.
	Connect func(client, profile string) (string, error)
	// Connected lists the MCP clients connected now. Nil: the window
	// cannot tell.
	Connected func() []ConnectedClient
	// WatchConnected calls changed whenever a client connects or goes,
	// until cancel is called; changed never blocks. Nil: the list is read
	// again on other changes and on Refresh.
	WatchConnected func(changed func()) (cancel func())
	// FirstRun reads what the first-run window offers to import; the tray
	// and the window open that window while the hub has an open import
	// offer (Status.ImportOffer). It may block; the UI calls it off the
	// main goroutine. Nil: the offer is only shown by hub status and doctor.
	FirstRun func() (FirstRun, error)
}

// Clients are the MCP clients the window offers to connect, as the
// install command names them.
var Clients = []string{"claude-code", "claude-desktop", "cursor", "vscode"}

func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// ErrNeedsClient is a Login that needs a client registered with the
// authorization server beforehand (SetOAuthClient): the server takes no
// registration the hub can make.
var ErrNeedsClient = errors.New("the authorization server needs a client registered beforehand")

// ErrClientElsewhere is, beside ErrNeedsClient or ErrNeedsClientCredentials,
// a Login whose connection has a client whose secret went to another
// server at its first sign-in and goes there only; the error names both.
var ErrClientElsewhere = errors.New("the client's secret belongs to another server")

// ErrNeedsClientCredentials is a Login of a REST API whose tokens its
// client gets on its own (client credentials): it needs the id and
// secret of a client registered with the authorization server
// (SetOAuthClient, with no redirect port).
var ErrNeedsClientCredentials = errors.New("the API needs the id and secret of its client")
