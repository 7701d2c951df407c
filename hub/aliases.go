package hub

import (
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/internal/proc"
)

// Names that moved to the packages below the heart, kept here while the
// files that use them still live in package hub. Each goes when the last
// of those files moves or is rewritten to the package's own name (see
// "Migration state" in the package doc); none may stay.

// From hub/secrets.
type (
	Secrets  = secrets.Secrets
	Redactor = secrets.Redactor
)

var (
	NewSecrets        = secrets.New
	ConnectionOwner   = secrets.ConnectionOwner
	LooksSecretName   = secrets.LooksSecretName
	LooksLikeToken    = secrets.LooksLikeToken
	RedactCredentials = secrets.RedactCredentials
	capText           = secrets.Cap
	utf8Start         = utf8.RuneStart
)

// From hub/naming.
var (
	Namespace     = naming.Namespace
	ToolNames     = naming.ToolNames
	baseJSName    = naming.MethodName
	assignJSNames = naming.AssignMethodNames
	truncateName  = naming.Truncate
)

// From internal/proc.
var pidAlive = proc.Alive

// From hub/store: its rows, which the heart's files name as before.
type (
	journalEntry = store.JournalEntry
	pendingRow   = store.Pending
)

// From hub/config.
type (
	Config       = config.Config
	Source       = config.Source
	Connection   = config.Connection
	Mode         = config.Mode
	ConfigError  = config.Error
	ConfigErrors = config.Errors
	Paths        = config.Paths
	OAuthConfig  = config.OAuthConfig
	Retention    = config.Retention
)

const (
	Allow            = config.Allow
	Ask              = config.Ask
	Deny             = config.Deny
	ImportConnection = config.ImportConnection
)

var (
	ParseMode       = config.ParseMode
	LoadConfig      = config.Load
	ParseConfig     = config.Parse
	ParseImport     = config.ParseImport
	SecretKey       = config.SecretKey
	HomeKeychain    = config.HomeKeychain
	writeFileAtomic = config.WriteFileAtomic
	standardJSON    = config.StandardJSON
	secureHome      = config.SecureHome
)

// From hub/oauth.
type (
	OAuthGrant    = oauth.Grant
	OAuthState    = oauth.State
	SignInOptions = oauth.SignInOptions
	oauthRecord   = oauth.Record
)

var (
	ErrNeedsSignIn  = oauth.ErrNeedsSignIn
	SignIn          = oauth.SignIn
	SignOut         = oauth.SignOut
	ReadOAuthState  = oauth.ReadState
	loadOAuthRecord = oauth.LoadRecord
	saveOAuthRecord = oauth.SaveRecord
	usesOAuth       = oauth.Applies
	signInHint      = oauth.SignInHint
)
