// A group of checkboxes, one per value the API accepts, each labelled with the value's own name
// (the name people then see in the API documentation and in webhook payloads), or, for values
// people do not read (device ids), with what `labelOf` names them by.
import { CheckboxField } from '../../ui/fields.tsx';

interface ChoiceBoxesProps {
  legend: string;
  choices: string[];
  chosen: string[];
  onChosen: (chosen: string[]) => void;
  error?: string | undefined;
  labelOf?: (choice: string) => string;
}

export function ChoiceBoxes({ legend, choices, chosen, onChosen, error, labelOf = (choice) => choice }: ChoiceBoxesProps) {
  const toggle = (choice: string, on: boolean) =>
    // Kept in the API's order, so the request reads the same whatever order they were ticked in.
    onChosen(choices.filter((candidate) => (candidate === choice ? on : chosen.includes(candidate))));
  return (
    <fieldset class={`choice-boxes${error ? ' field-invalid' : ''}`}>
      <legend>{legend}</legend>
      <div class="choice-grid">
        {choices.map((choice) => (
          <CheckboxField key={choice} label={labelOf(choice)} name={choice} checked={chosen.includes(choice)} onChecked={(on) => toggle(choice, on)} />
        ))}
      </div>
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}
