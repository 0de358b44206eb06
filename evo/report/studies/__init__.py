"""What is specific to one study: RELINE's evaluation (Table 1) first."""
