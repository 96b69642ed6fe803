"use client";

import { useCombobox } from "downshift";
import { useId, useMemo, useState } from "react";
import type { CategoryPair } from "@/lib/transactions/categories";
import {
  CATEGORIES,
  type Category,
  TAXONOMY,
  categoryLabel,
  subcategoriesOf,
  subcategoryLabel,
} from "@/lib/upstream/taxonomy";

// The category control: one searchable combobox (downshift: ARIA 1.2 combobox and listbox, arrow keys, Enter, Escape)
// in two steps. First the 23 categories (typing filters them, also by the names of their subcategories), then only
// that category's subcategories. Choosing a subcategory hands the pair over: there is no "keep or default" choice that
// would let the upstream pick a subcategory nobody saw.

interface Option {
  value: string;
  label: string;
  /** Subcategories whose names matched the search, shown beside a category. */
  hint?: string;
}

const fold = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();

export function categoryOptions(query: string): Option[] {
  const q = fold(query.trim());
  const all = CATEGORIES.map((c) => ({ value: c, label: categoryLabel(c) }));
  if (!q) return all;
  const options: Option[] = [];
  for (const option of all) {
    const subs = Object.values(TAXONOMY[option.value].subcategories as Record<string, string>).filter((label) =>
      fold(label).includes(q),
    );
    if (fold(option.label).includes(q)) options.push(option);
    else if (subs.length > 0) options.push({ ...option, hint: subs.slice(0, 3).join(", ") });
  }
  // Names that start with the words typed come first.
  return options.sort((a, b) => Number(!fold(a.label).startsWith(q)) - Number(!fold(b.label).startsWith(q)));
}

export function subcategoryOptions(category: Category, query: string): Option[] {
  const q = fold(query.trim());
  return subcategoriesOf(category)
    .map((s) => ({ value: s as string, label: subcategoryLabel(s) }))
    .filter((o) => !q || fold(o.label).includes(q));
}

export function CategoryCombobox({
  label,
  current,
  onChoose,
  onCancel,
  autoFocus = false,
  busy = false,
}: {
  /** What is being corrected, for screen readers: "New category for STARBUCKS 1234". */
  label: string;
  current?: CategoryPair | null;
  onChoose: (pair: CategoryPair) => void;
  onCancel?: () => void;
  autoFocus?: boolean;
  busy?: boolean;
}) {
  const [category, setCategory] = useState<Category | null>(null);
  // What was typed, mirrored for the filtering; downshift owns the input's value (a controlled value loses keystrokes
  // typed faster than React renders). Set in the input's own change event: downshift calls onInputValueChange from an
  // effect, later, so an Enter right after typing or pasting would otherwise pick from the list before the filter.
  const [inputValue, setTyped] = useState("");
  const items = useMemo(
    () => (category ? subcategoryOptions(category, inputValue) : categoryOptions(inputValue)),
    [category, inputValue],
  );
  const hintId = useId();

  const { isOpen, getLabelProps, getMenuProps, getInputProps, getItemProps, highlightedIndex, setInputValue } =
    useCombobox<Option>({
      items,
      itemToString: (item) => item?.label ?? "",
      itemToKey: (item) => item?.value ?? null,
      initialIsOpen: true,
      defaultHighlightedIndex: 0,
      // The list stays open while the control is shown: it is the control.
      stateReducer: (state, { type, changes }) => {
        // Leaving the field (Tab, a click elsewhere) never picks: only Enter or a click on an option does.
        if (type === useCombobox.stateChangeTypes.InputBlur)
          return { ...changes, selectedItem: state.selectedItem, inputValue: state.inputValue, isOpen: true };
        const picked =
          type === useCombobox.stateChangeTypes.InputKeyDownEnter || type === useCombobox.stateChangeTypes.ItemClick;
        // A pick empties the field for the next step instead of writing the picked name into it.
        return picked && changes.selectedItem
          ? { ...changes, isOpen: true, inputValue: "" }
          : { ...changes, isOpen: true };
      },
      onInputValueChange: ({ inputValue: value }) => setTyped(value ?? ""),
      onSelectedItemChange: ({ selectedItem }) => {
        if (!selectedItem) return;
        if (!category) {
          setCategory(selectedItem.value as Category);
        } else {
          onChoose({ category, subcategory: selectedItem.value } as CategoryPair);
        }
      },
      getA11yStatusMessage: ({ isOpen: open }) =>
        open
          ? `${items.length} ${category ? `subcategories of ${categoryLabel(category)}` : "categories"}${inputValue ? ` matching ${inputValue}` : ""}.`
          : "",
    });

  return (
    <div className="w-full space-y-1" data-testid="category-combobox">
      <div className="flex items-baseline justify-between gap-2">
        <label {...getLabelProps()} className="text-xs font-medium text-slate-700">
          {category ? (
            <>
              Subcategory of <span className="font-semibold">{categoryLabel(category)}</span>
            </>
          ) : (
            "Category"
          )}
          <span className="sr-only">: {label}</span>
        </label>
        {category ? (
          <button
            type="button"
            className="rounded text-xs text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
            onClick={() => {
              setCategory(null);
              setInputValue("");
            }}
          >
            Back to categories
          </button>
        ) : null}
      </div>
      <input
        {...getInputProps({
          autoFocus,
          disabled: busy,
          placeholder: category ? "Type to filter subcategories" : "Type to search categories",
          "aria-describedby": hintId,
          onChange: (event) => setTyped((event.target as HTMLInputElement).value),
          onKeyDown: (event) => {
            if (event.key === "Escape") {
              (event.nativeEvent as { preventDownshiftDefault?: boolean }).preventDownshiftDefault = true;
              event.stopPropagation();
              onCancel?.();
            } else if (event.key === "Backspace" && inputValue === "" && category) {
              setCategory(null);
            }
          },
        })}
        className="block w-full rounded border border-slate-300 bg-white px-2 py-1 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-600"
      />
      <p id={hintId} className="text-[11px] leading-tight text-slate-500">
        {current
          ? `Now ${categoryLabel(current.category)}${current.subcategory ? ` › ${subcategoryLabel(current.subcategory)}` : ""}. `
          : ""}
        ↑↓ choose, Enter {category ? "applies" : "picks"}, {category ? "Backspace goes back, " : ""}Esc cancels.
      </p>
      <ul
        {...getMenuProps()}
        className={`max-h-56 overflow-y-auto rounded border border-slate-200 bg-white text-sm shadow-sm ${isOpen ? "" : "hidden"}`}
      >
        {isOpen && items.length === 0 ? (
          <li className="px-2 py-1.5 text-slate-500">Nothing matches “{inputValue}”.</li>
        ) : null}
        {isOpen
          ? items.map((item, index) => {
              const isCurrent = category
                ? current?.subcategory === item.value && current?.category === category
                : current?.category === item.value;
              return (
                <li
                  key={item.value}
                  {...getItemProps({ item, index })}
                  className={`flex cursor-pointer items-baseline justify-between gap-2 px-2 py-1 ${highlightedIndex === index ? "bg-indigo-600 text-white" : "text-slate-900"}`}
                >
                  <span>
                    {item.label}
                    {item.hint ? (
                      <span
                        className={`ml-1 text-xs ${highlightedIndex === index ? "text-indigo-100" : "text-slate-500"}`}
                      >
                        ({item.hint})
                      </span>
                    ) : null}
                  </span>
                  {isCurrent ? (
                    <span className={`text-xs ${highlightedIndex === index ? "text-indigo-100" : "text-slate-500"}`}>
                      now
                    </span>
                  ) : null}
                </li>
              );
            })
          : null}
      </ul>
    </div>
  );
}
