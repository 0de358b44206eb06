"""Training and scoring of the perception models, one module per model."""
