package policy

// DecisionWords says, for a person, who let one call of a run through and
// how: "waiting for a decision" while it waits (state "pending", or
// "planned" in a run's plan), "no approval asked (policy allowed it)" when
// nobody was asked, else the decision ("allow" or "deny"), whether it was
// remembered, who took it and in which channel ("allowed once in the
// approval dialog", "always denied by ana in the terminal", "denied when the
// approval expired"). An actor named like its channel is not said twice.
// The CLI's `hub runs RUNID` and the window's Runs tab both say it so.
func DecisionWords(state, decision string, remember bool, actor, channel string) string {
	switch {
	case decision == "" && state == "pending":
		return "waiting for a decision"
	case decision == "" && state == "planned":
		return "waiting for a decision on the run's plan"
	case decision == "":
		return "no approval asked (policy allowed it)"
	}
	s := "allowed"
	if decision == "deny" {
		s = "denied"
	}
	if remember {
		s = "always " + s
	} else if decision == "allow" {
		s += " once"
	}
	// An actor that only names the channel ("terminal" deciding in the
	// terminal) says nothing the channel does not.
	if actor != "" && actor != channel && actor != ChannelWords(channel) {
		s += " by " + actor
	}
	switch channel {
	case "":
	case "expired":
		s += " when the approval expired"
	default:
		s += " in the " + ChannelWords(channel)
	}
	return s
}
